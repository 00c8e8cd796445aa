import Foundation
import MedVaultCore

/// Applies dose journal entries inside the vault's write transaction (see
/// ``Vault/mergeDoseJournal()``).
enum DoseJournalMerge {
    static let isMerged = "SELECT 1 FROM dose_journal_merged WHERE entry_id = ?"
    static let recordMerged = "INSERT INTO dose_journal_merged (entry_id, outcome, merged_at) VALUES (?, ?, ?)"

    /// Applies each entry not merged before, each in a savepoint of its own: an entry the
    /// vault refuses leaves nothing behind, and the others still apply.
    static func apply(_ entries: [DoseJournalEntry], clock: RecordClock, in db: DatabaseConnection) throws
        -> DoseJournalMergeReport
    {
        var report = DoseJournalMergeReport()
        let now = clock.now()
        let writer = DoseLogWriter(clock: clock, faults: nil)
        for entry in entries {
            if try db.fetchOne(isMerged, [entry.id.vaultValue], { _ in true }) != nil {
                report.alreadyMerged += 1
                continue
            }
            try db.execute("SAVEPOINT dose_journal_entry")
            var outcome: String
            do {
                if let log = entry.doseLog {
                    _ = try writer.write([log], db)
                    report.logged += 1
                    outcome = "logged"
                } else {
                    // A snooze of a dose logged since, or older than the vault's, is moot.
                    outcome = try storeSnooze(entry, now: now, db) ? "snoozed" : "superseded"
                    if outcome == "snoozed" { report.snoozed += 1 }
                }
                try db.execute("RELEASE dose_journal_entry")
            } catch let error as MedVaultError where error.code != .storage && error.code != .diskFull {
                try db.execute("ROLLBACK TO dose_journal_entry")
                try db.execute("RELEASE dose_journal_entry")
                report.refused[error.code, default: 0] += 1
                outcome = "refused:\(error.code.rawValue)"
            }
            try db.execute(recordMerged, [entry.id.vaultValue, .text(outcome), now.vaultValue])
        }
        return report
    }

    /// Stores a journal snooze unless the dose is logged or the vault holds a later one.
    ///
    /// - Returns: Whether it was stored.
    /// - Throws: `notFound` (field `medicationID`) when the medication is gone.
    private static func storeSnooze(_ entry: DoseJournalEntry, now: Date, _ db: DatabaseConnection) throws -> Bool {
        guard let until = entry.snoozedUntil, let count = entry.snoozeCount else { return false }
        let medication = try SQLCipherMedicationStore.fetchMedication(entry.medicationID, db, field: "medicationID")
            .medication
        let key: [VaultValue] = [entry.medicationID.vaultValue, entry.scheduledAt.vaultValue]
        if try db.fetchOne("SELECT 1 FROM dose_log WHERE medication_id = ? AND scheduled_at = ?", key, { _ in true }) != nil {
            return false
        }
        let existing = try db.fetchOne(SQLCipherMedicationScheduleRepository.selectSnooze, key,
                                       SQLCipherMedicationScheduleRepository.decodeSnooze)
        if let existing, existing.count >= count { return false }
        try db.execute(SQLCipherMedicationScheduleRepository.replaceSnooze, [
            entry.medicationID.vaultValue, medication.patientID.vaultValue, entry.scheduledAt.vaultValue,
            until.vaultValue, .integer(Int64(count)), now.vaultValue,
        ])
        return true
    }
}
