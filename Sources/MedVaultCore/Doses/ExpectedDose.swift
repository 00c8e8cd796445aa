import Foundation

/// A dose a medication's plan expects at an instant, before looking at logs.
public struct ExpectedDose: Sendable, Hashable {
    /// The medication.
    public var medicationID: UUID
    /// When the dose is due.
    public var scheduledAt: Date
    /// The label of the schedule time, if any.
    public var label: String?

    /// Creates an expected dose.
    public init(medicationID: UUID, scheduledAt: Date, label: String? = nil) {
        self.medicationID = medicationID
        self.scheduledAt = scheduledAt
        self.label = label
    }
}
