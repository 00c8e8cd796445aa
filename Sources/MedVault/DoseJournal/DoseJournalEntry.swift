import Foundation
import MedVaultCore

/// One entry of a dose journal: a dose taken or skipped, or a snooze.
struct DoseJournalEntry: Sendable, Hashable {
    enum Kind: String, Sendable { case log, snooze }

    var id = UUID()
    var kind: Kind
    var medicationID: UUID
    var scheduledAt: Date
    var status: DoseStatus?
    var takenAt: Date?
    var skipReason: SkipReason?
    var snoozedUntil: Date?
    var snoozeCount: Int?
    var recordedAt: Date

    /// The dose log the vault stores for a `log` entry: the entry's id becomes the log's.
    var doseLog: DoseLog? {
        guard kind == .log, let status else { return nil }
        return DoseLog(id: id, medicationID: medicationID, scheduledAt: scheduledAt, status: status,
                       takenAt: takenAt, skipReason: skipReason)
    }
}
