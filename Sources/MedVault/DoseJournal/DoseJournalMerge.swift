import Foundation
import MedVaultCore

/// Applies dose journal entries inside the vault's write transaction (see
/// ``Vault/mergeDoseJournal()``).
enum DoseJournalMerge {
    static let isMerged = "SELECT 1 FROM dose_journal_merged WHERE entry_id = ?"
    static let recordMerged = "INSERT INTO dose_journal_merged (entry_id, outcome, merged_at) VALUES (?, ?, ?)"

    /// What the vault knows of the plan it gave the journal.
    struct Context: Sendable {
        /// The zone of frequency-derived doses.
        var timeZone: TimeZone
        /// When the journal was issued; a dose more than a day earlier is refused (the
        /// plan never held it).
        var issuedAt: Date
        /// The end of the latest plan written; a later dose is refused.
        var planUntil: Date?
    }

    /// The codes of a rule's refusal: the entry is recorded as refused and the merge goes
    /// on. Any other error (storage, a full disk, cancellation) stops the merge, and
    /// nothing of it is applied.
    static let refusals: Set<MedVaultError.Code> = [
        .validation, .duplicate, .notFound, .limitExceeded, .immutable, .invalidArgument, .conflict,
    ]

    /// Applies each entry not merged before, each in a savepoint of its own: an entry the
    /// vault refuses leaves nothing behind, and the others still apply.
    static func apply(_ entries: [DoseJournalEntry], context: Context, clock: RecordClock,
                      in db: DatabaseConnection) throws -> DoseJournalMergeReport {
        var report = DoseJournalMergeReport()
        let now = clock.now()
        let writer = DoseLogWriter(clock: clock, faults: nil)
        for entry in entries {
            if try db.fetchOne(isMerged, [entry.id.vaultValue], { _ in true }) != nil {
                report.alreadyMerged += 1
                continue
            }
            var outcome: String
            do {
                outcome = try db.inSavepoint {
                    try checkPlanned(entry, context: context, db)
                    if let log = entry.doseLog {
                        _ = try writer.write([log], db)
                        return "logged"
                    }
                    // A snooze of a dose logged since, or older than the vault's, is moot.
                    return try storeSnooze(entry, now: now, db) ? "snoozed" : "superseded"
                }
                if outcome == "logged" { report.logged += 1 }
                if outcome == "snoozed" { report.snoozed += 1 }
            } catch let error as MedVaultError where refusals.contains(error.code) {
                report.refused[error.code, default: 0] += 1
                outcome = "refused:\(error.code.rawValue)"
            }
            try db.execute(recordMerged, [entry.id.vaultValue, .text(outcome), now.vaultValue])
        }
        return report
    }

    /// Refuses an entry that is not a dose the vault expects: the instant one of its
    /// medication's expected doses (schedules, or frequency in the plan's zone; a
    /// medication deactivated since keeps its doses before then), from a day before the
    /// journal's issue to the end of the latest plan. The journal's own plan is not trusted: any key holder can
    /// write it.
    ///
    /// - Throws: `notFound` (field `medicationID`); `validation` (field `scheduledAt`).
    private static func checkPlanned(_ entry: DoseJournalEntry, context: Context, _ db: DatabaseConnection) throws {
        let medication = try SQLCipherMedicationStore.fetchMedication(entry.medicationID, db, field: "medicationID")
            .medication
        let schedules = try SQLCipherMedicationScheduleRepository.list(medicationID: medication.id, in: db)
        let instant = entry.scheduledAt.truncatedToMilliseconds
        let expected = DoseExpansion.expectedDoses(for: medication, schedules: schedules,
                                                   in: instant..<instant.addingTimeInterval(0.001),
                                                   fallbackTimeZone: context.timeZone)
        guard !expected.isEmpty, instant < (context.planUntil ?? .distantPast),
              instant >= context.issuedAt.addingTimeInterval(-86_400) else {
            throw MedVaultError.validation("scheduledAt", "is not a dose of the plan")
        }
    }

    /// Stores a journal snooze unless the dose is logged or the vault holds a later one.
    ///
    /// - Returns: Whether it was stored.
    private static func storeSnooze(_ entry: DoseJournalEntry, now: Date, _ db: DatabaseConnection) throws -> Bool {
        guard let until = entry.snoozedUntil, let count = entry.snoozeCount else { return false }
        guard (1...10).contains(count) else {
            throw MedVaultError(.limitExceeded, field: "reminders.maximumSnoozes", reason: "too many snoozes")
        }
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
