/// What logging a dose wrote: the stored log and, when the medication tracks an
/// inventory, its new state.
///
/// Inventory policy: a dose the patient took is always recorded. If the stock on
/// hand is smaller than the dose, the inventory is set to zero and the missing
/// amount is reported in ``shortfall`` (the app can then ask the patient to
/// correct the count), rather than refusing the log or storing a negative count.
public struct DoseLogReceipt: Sendable, Hashable {
    /// The stored log (version 1).
    public var log: DoseLog
    /// The medication after the write: with its decremented inventory when the dose
    /// consumed stock, unchanged otherwise. Its version stays: the stock is derived
    /// from the logs, so a dose is not a new version of the medication.
    public var medication: Medication
    /// How much of the dose the inventory could not cover; zero when it could (or
    /// when nothing was consumed).
    public var shortfall: MedicationQuantity

    /// Creates a receipt.
    public init(log: DoseLog, medication: Medication, shortfall: MedicationQuantity) {
        self.log = log
        self.medication = medication
        self.shortfall = shortfall
    }
}
