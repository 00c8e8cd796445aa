/// How a medication is administered (oral, inhaled, subcutaneous…).
///
/// An open set: a raw value this version does not know (stored by a newer app)
/// round-trips intact.
public struct AdministrationRoute: ExtensibleCategory {
    /// The stored text, e.g. `"oral"`.
    public let rawValue: String

    /// Creates a value from its stored text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `"oral"`.
    public static let oral = Self("oral")
    /// `"sublingual"`.
    public static let sublingual = Self("sublingual")
    /// `"topical"`.
    public static let topical = Self("topical")
    /// `"intravenous"`.
    public static let intravenous = Self("intravenous")
    /// `"intramuscular"`.
    public static let intramuscular = Self("intramuscular")
    /// `"subcutaneous"`.
    public static let subcutaneous = Self("subcutaneous")
    /// `"inhaled"`.
    public static let inhaled = Self("inhaled")
    /// `"rectal"`.
    public static let rectal = Self("rectal")
    /// `"ophthalmic"`.
    public static let ophthalmic = Self("ophthalmic")
    /// `"otic"`.
    public static let otic = Self("otic")
    /// `"nasal"`.
    public static let nasal = Self("nasal")
}
