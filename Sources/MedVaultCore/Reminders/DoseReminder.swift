import Foundation

/// A reminder an app's notification scheduler should schedule (see
/// `MedicationStore.upcomingReminders(forPatient:from:until:timeZone:options:)`): a dose
/// not yet logged, its follow-up, or a stock event.
///
/// Schedule each by ``ID/identifier``: the same reminder keeps the same identifier from
/// one query to the next, so an app reconciles by cancelling the identifiers a fresh
/// query no longer returns and adding the new ones.
public struct DoseReminder: Sendable, Hashable, Identifiable {
    /// What a reminder is about.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A dose is due: at its time minus the schedule's lead, or when its snooze ends.
        case dose
        /// A dose is still not logged ``ReminderOptions/followUpMinutes`` after its
        /// reminder last fired.
        case followUp = "follow-up"
        /// The expected dose at ``DoseReminder/scheduledAt`` takes the stock to or below
        /// the inventory's minimum.
        case lowStock = "low-stock"
        /// From the day of the dose at ``DoseReminder/scheduledAt``, the stock lasts at
        /// most ``ReminderOptions/refillLeadDays`` days.
        case refill
    }

    /// A reminder's stable identity: its kind, medication, dose and how many times the
    /// dose was snoozed (a snooze moves the reminder and its follow-up: they get new
    /// identities, so an app reconciling by identifier replaces them).
    public struct ID: Sendable, Hashable {
        /// What the reminder is about.
        public var kind: Kind
        /// The medication.
        public var medicationID: UUID
        /// The dose the reminder belongs to, in milliseconds since 1970.
        public var scheduledAtMilliseconds: Int64
        /// How many times the dose was snoozed (0 for stock events).
        public var snoozeCount: Int

        /// Creates an identity.
        public init(kind: Kind, medicationID: UUID, scheduledAtMilliseconds: Int64, snoozeCount: Int = 0) {
            self.kind = kind
            self.medicationID = medicationID
            self.scheduledAtMilliseconds = scheduledAtMilliseconds
            self.snoozeCount = snoozeCount
        }

        /// A string for a notification scheduler, such as
        /// `follow-up:6F1C…:1772951400000:0`: kind, medication, dose, snoozes. No clinical data.
        public var identifier: String {
            "\(kind.rawValue):\(medicationID.uuidString):\(scheduledAtMilliseconds):\(snoozeCount)"
        }
    }

    /// What the reminder is about.
    public var kind: Kind
    /// The medication.
    public var medicationID: UUID
    /// The schedule version that expects the dose; `nil` for a frequency-derived dose.
    public var scheduleID: UUID?
    /// The dose: the one due (``Kind/dose``, ``Kind/followUp``), or the expected dose
    /// with which the stock crosses its threshold (``Kind/lowStock``, ``Kind/refill``).
    public var scheduledAt: Date
    /// When to remind.
    public var remindAt: Date
    /// The schedule time's label, if any.
    public var label: String?
    /// The amount its schedule sets, or `nil` for the medication's dosage.
    public var amount: MedicationQuantity?
    /// How many times the dose's reminder was snoozed.
    public var snoozeCount: Int

    /// Creates a reminder.
    public init(medicationID: UUID, scheduleID: UUID?, scheduledAt: Date, remindAt: Date,
                label: String?, amount: MedicationQuantity?, snoozeCount: Int, kind: Kind = .dose) {
        self.kind = kind
        self.medicationID = medicationID
        self.scheduleID = scheduleID
        self.scheduledAt = scheduledAt
        self.remindAt = remindAt
        self.label = label
        self.amount = amount
        self.snoozeCount = snoozeCount
    }

    /// The reminder's stable identity (kind, medication, dose, snoozes).
    public var id: ID {
        ID(kind: kind, medicationID: medicationID, scheduledAtMilliseconds: scheduledAt.millisecondsSince1970,
           snoozeCount: snoozeCount)
    }

    /// The dose's identity, the same as its ``ScheduledDose``'s.
    public var doseID: ScheduledDose.ID {
        ScheduledDose.ID(medicationID: medicationID, scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
    }
}
