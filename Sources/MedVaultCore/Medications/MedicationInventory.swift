/// How much of a medication the patient has at home.
///
/// Logging a dose as taken subtracts the dosage amount from ``current`` in the
/// same transaction; it never goes below zero (see ``DoseLogReceipt/shortfall``).
public struct MedicationInventory: Sendable, Hashable, Codable {
    /// The quantity on hand, in the dosage's unit; zero or more.
    public var current: MedicationQuantity
    /// The quantity at or below which the medication reads as running low; zero or more.
    public var minimum: MedicationQuantity
    /// How many units one package holds, if known; above zero.
    public var packageSize: MedicationQuantity?
    /// The expiration date of the stock on hand, if known.
    public var expirationDate: CalendarDate?

    /// Creates an inventory.
    public init(
        current: MedicationQuantity,
        minimum: MedicationQuantity = .zero,
        packageSize: MedicationQuantity? = nil,
        expirationDate: CalendarDate? = nil
    ) {
        self.current = current
        self.minimum = minimum
        self.packageSize = packageSize
        self.expirationDate = expirationDate
    }

    /// Whether the stock is at or below ``minimum``.
    public var isLow: Bool { current <= minimum }
}
