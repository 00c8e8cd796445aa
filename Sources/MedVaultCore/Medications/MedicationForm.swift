/// The pharmaceutical form of a medication (tablet, liquid, inhaler…).
///
/// An open set: a raw value this version does not know (stored by a newer app)
/// round-trips intact.
public struct MedicationForm: ExtensibleCategory {
    /// The stored text, e.g. `"tablet"`.
    public let rawValue: String

    /// Creates a value from its stored text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `"tablet"`.
    public static let tablet = Self("tablet")
    /// `"capsule"`.
    public static let capsule = Self("capsule")
    /// `"liquid"`.
    public static let liquid = Self("liquid")
    /// `"injection"`.
    public static let injection = Self("injection")
    /// `"cream"`.
    public static let cream = Self("cream")
    /// `"patch"`.
    public static let patch = Self("patch")
    /// `"inhaler"`.
    public static let inhaler = Self("inhaler")
    /// `"drops"`.
    public static let drops = Self("drops")
    /// `"other"`.
    public static let other = Self("other")
}
