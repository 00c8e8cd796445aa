/// How much of a medication one dose is: an exact amount and its unit.
///
/// For example:
///
/// ```swift
/// let dosage = Dosage(amount: 500, unit: .mg)
/// dosage.description // "500 mg"
/// ```
public struct Dosage: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The amount per dose; must be above zero.
    public var amount: MedicationQuantity
    /// The unit of ``amount``.
    public var unit: DosageUnit

    /// Creates a dosage.
    public init(amount: MedicationQuantity, unit: DosageUnit) {
        self.amount = amount
        self.unit = unit
    }

    /// `"<amount> <unit>"`, for example `"2.5 ml"`.
    public var description: String { "\(amount) \(unit.rawValue)" }
}
