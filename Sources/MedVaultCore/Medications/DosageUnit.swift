/// The unit a dosage or an inventory quantity is counted in (mg, tablets, puffs…).
///
/// An open set: a raw value this version does not know (stored by a newer app)
/// round-trips intact.
public struct DosageUnit: ExtensibleCategory {
    /// The stored text, e.g. `"mg"`.
    public let rawValue: String

    /// Creates a value from its stored text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `"mg"`.
    public static let mg = Self("mg")
    /// `"g"`.
    public static let g = Self("g")
    /// `"ml"`.
    public static let ml = Self("ml")
    /// `"units"`.
    public static let units = Self("units")
    /// `"drops"`.
    public static let drops = Self("drops")
    /// `"puffs"`.
    public static let puffs = Self("puffs")
    /// `"tablets"`.
    public static let tablets = Self("tablets")
    /// `"capsules"`.
    public static let capsules = Self("capsules")
}
