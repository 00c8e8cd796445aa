/// How severe a diagnosed condition is: an open set of string values.
///
/// The constants follow ICD-11's severity scale extension codes (`XS5W` mild,
/// `XS0T` moderate, `XS25` severe). Unknown raw values read from storage are kept intact.
public struct DiagnosisSeverity: ExtensibleCategory {
    /// The stored value.
    public let rawValue: String
    /// Wraps a stored value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Mild.
    public static let mild = DiagnosisSeverity(rawValue: "mild")
    /// Moderate.
    public static let moderate = DiagnosisSeverity(rawValue: "moderate")
    /// Severe.
    public static let severe = DiagnosisSeverity(rawValue: "severe")

}
