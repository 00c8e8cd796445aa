import Foundation

/// A dose whose reminder the patient snoozed: the reminder fires again at
/// ``snoozedUntil``. Stored by ``MedicationScheduleRepository/snooze(scheduleID:doseAt:)``.
public struct DoseSnooze: Sendable, Hashable, Codable {
    /// The medication.
    public var medicationID: UUID
    /// The dose, by its scheduled instant.
    public var scheduledAt: Date
    /// When the reminder fires again.
    public var snoozedUntil: Date
    /// How many times this dose's reminder was snoozed (1 after the first snooze).
    public var count: Int

    /// Creates a snooze.
    public init(medicationID: UUID, scheduledAt: Date, snoozedUntil: Date, count: Int) {
        self.medicationID = medicationID
        self.scheduledAt = scheduledAt
        self.snoozedUntil = snoozedUntil
        self.count = count
    }
}
