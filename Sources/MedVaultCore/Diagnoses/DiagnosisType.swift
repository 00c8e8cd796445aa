/// The role of a diagnosis in a session: an open set of string values.
///
/// Unknown raw values read from storage are kept intact.
public struct DiagnosisType: ExtensibleCategory {
    /// The stored value.
    public let rawValue: String
    /// Wraps a stored value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The main diagnosis ("principal").
    public static let principal = DiagnosisType(rawValue: "principal")
    /// An additional diagnosis ("secundario").
    public static let secondary = DiagnosisType(rawValue: "secondary")
    /// A hypothesis still to be ruled out ("diferencial").
    public static let differential = DiagnosisType(rawValue: "differential")

}
