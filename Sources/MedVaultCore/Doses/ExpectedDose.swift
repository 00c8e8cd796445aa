import Foundation

/// A dose a medication's plan expects at an instant, before looking at logs.
public struct ExpectedDose: Sendable, Hashable {
    /// The medication.
    public var medicationID: UUID
    /// When the dose is due.
    public var scheduledAt: Date
    /// The label of the schedule time, if any.
    public var label: String?
    /// The amount of the dose when its schedule sets one (a taper step or a per-time
    /// amount); `nil`: the medication's dosage.
    public var amount: MedicationQuantity?
    /// The schedule version that expects the dose; `nil` for a frequency-derived dose.
    public var scheduleID: UUID?

    /// Creates an expected dose.
    public init(medicationID: UUID, scheduledAt: Date, label: String? = nil,
                amount: MedicationQuantity? = nil, scheduleID: UUID? = nil) {
        self.medicationID = medicationID
        self.scheduledAt = scheduledAt
        self.label = label
        self.amount = amount
        self.scheduleID = scheduleID
    }
}
