import Foundation

/// A reminder an app's notification scheduler should schedule: a dose not yet
/// logged, and when to remind of it (see `MedicationStore.upcomingReminders(forPatient:from:until:)`).
public struct DoseReminder: Sendable, Hashable, Identifiable {
    /// The medication.
    public var medicationID: UUID
    /// The schedule version that expects the dose; `nil` for a frequency-derived dose.
    public var scheduleID: UUID?
    /// When the dose is due.
    public var scheduledAt: Date
    /// When to remind: the dose time minus the schedule's lead time, or the end of
    /// the last snooze.
    public var remindAt: Date
    /// The schedule time's label, if any.
    public var label: String?
    /// The amount its schedule sets, or `nil` for the medication's dosage.
    public var amount: MedicationQuantity?
    /// How many times the reminder was snoozed.
    public var snoozeCount: Int

    /// Creates a reminder.
    public init(medicationID: UUID, scheduleID: UUID?, scheduledAt: Date, remindAt: Date,
                label: String?, amount: MedicationQuantity?, snoozeCount: Int) {
        self.medicationID = medicationID
        self.scheduleID = scheduleID
        self.scheduledAt = scheduledAt
        self.remindAt = remindAt
        self.label = label
        self.amount = amount
        self.snoozeCount = snoozeCount
    }

    /// The dose's identity (medication and scheduled instant), the same as its ``ScheduledDose``'s.
    public var id: ScheduledDose.ID {
        ScheduledDose.ID(medicationID: medicationID, scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
    }
}
