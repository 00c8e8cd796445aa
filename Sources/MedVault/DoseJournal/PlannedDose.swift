import Foundation
import MedVaultCore

/// A dose of the plan a ``DoseJournal`` holds, as an extension shows it: which
/// medication, when, how much, and what the journal recorded for it so far.
public struct PlannedDose: Sendable, Hashable, Identifiable {
    /// The medication.
    public var medicationID: UUID
    /// Its name, as a reminder shows it.
    public var medicationName: String
    /// Its dosage.
    public var dosage: Dosage
    /// When the dose is due.
    public var scheduledAt: Date
    /// The schedule time's label, if any.
    public var label: String?
    /// The amount its schedule sets, or `nil` for the dosage's.
    public var amount: MedicationQuantity?
    /// The schedule version that expects it; `nil` for a frequency-derived dose.
    public var scheduleID: UUID?
    /// What the journal recorded: `taken` or `skipped`; `nil` when nothing yet (the vault
    /// may hold a log the plan predates).
    public var journalStatus: DoseStatus?
    /// The end of its last snooze recorded in the journal, if any.
    public var snoozedUntil: Date?

    /// The dose's identity, the same as its `ScheduledDose`'s.
    public var id: ScheduledDose.ID {
        ScheduledDose.ID(medicationID: medicationID, scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
    }
}
