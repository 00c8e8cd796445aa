/// How an app reminds a patient of a schedule's doses: how long before each dose,
/// and how snoozing works. Stored with the schedule; used by
/// `MedicationStore.upcomingReminders(forPatient:from:until:timeZone:options:)` and
/// ``MedicationScheduleRepository/snooze(scheduleID:doseAt:)``.
///
/// For example:
///
/// ```swift
/// // Remind 15 minutes early; each snooze waits 10 minutes, at most 3 times.
/// let reminders = ReminderSettings(leadMinutes: 15, snoozeMinutes: 10, maximumSnoozes: 3)
/// ```
public struct ReminderSettings: Sendable, Hashable, Codable {
    /// Minutes before the dose the reminder fires, 0 through 1440.
    public var leadMinutes: Int
    /// Minutes a snooze postpones the reminder, 1 through 240.
    public var snoozeMinutes: Int
    /// How many times one dose's reminder may be snoozed, 0 through 10.
    public var maximumSnoozes: Int

    /// Creates settings; the defaults remind at the dose time and allow 3 snoozes of 10 minutes.
    public init(leadMinutes: Int = 0, snoozeMinutes: Int = 10, maximumSnoozes: Int = 3) {
        self.leadMinutes = leadMinutes
        self.snoozeMinutes = snoozeMinutes
        self.maximumSnoozes = maximumSnoozes
    }

    /// The defaults: at the dose time, 3 snoozes of 10 minutes.
    public static let standard = ReminderSettings()
}
