/// A patient's biological sex: an open set of string values.
///
/// The named constants cover the usual clinical values; any other raw value read from
/// storage is kept intact, so a value written by a newer app version survives a round
/// trip through an older one.
///
/// For example:
///
/// ```swift
/// patient.biologicalSex = .female
/// BiologicalSex(rawValue: "x-custom").rawValue   // "x-custom"
/// ```
public struct BiologicalSex: ExtensibleCategory {
    /// The stored value.
    public let rawValue: String
    /// Wraps a stored value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Female.
    public static let female = BiologicalSex(rawValue: "female")
    /// Male.
    public static let male = BiologicalSex(rawValue: "male")
    /// Intersex.
    public static let intersex = BiologicalSex(rawValue: "intersex")
    /// Not recorded or not disclosed.
    public static let unspecified = BiologicalSex(rawValue: "unspecified")

}
