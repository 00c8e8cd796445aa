/// Why a patient skipped a dose.
///
/// An open set: a raw value this version does not know (stored by a newer app)
/// round-trips intact.
public struct SkipReason: ExtensibleCategory {
    /// The stored text, e.g. `"sideEffects"`.
    public let rawValue: String

    /// Creates a value from its stored text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `"sideEffects"`.
    public static let sideEffects = Self("sideEffects")
    /// `"forgot"`.
    public static let forgot = Self("forgot")
    /// `"outOfMedication"`.
    public static let outOfMedication = Self("outOfMedication")
    /// `"doctorAdvised"`.
    public static let doctorAdvised = Self("doctorAdvised")
    /// `"feltBetter"`.
    public static let feltBetter = Self("feltBetter")
    /// `"other"`.
    public static let other = Self("other")
}
