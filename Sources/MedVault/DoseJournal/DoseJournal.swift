import Foundation
import MedVaultCore
import MedVaultKeys

/// A vault's dose journal, opened with the limited ``DoseJournalKey`` only: what a
/// notification action, a widget or a watch app uses to show the coming doses and record
/// one taken, skipped or snoozed while the vault is locked, closed, or open in another
/// process (docs/extensions.md).
///
/// It reads the plan the vault last wrote (the coming days' doses) and appends entries;
/// it cannot read a patient, a session, a diagnosis or past doses — the journal holds
/// none — and it cannot open the vault. The vault merges the entries at its next unlock
/// (or ``Vault/mergeDoseJournal()``), each exactly once, as logs written directly.
///
/// For example, in a notification's "Taken" action:
///
/// ```swift
/// let key = try DoseJournalKey(try secretStore.load(account: "dose-journal")!)
/// let journal = try await DoseJournal.open(in: vaultFolder, key: key)
/// try await journal.logTaken(medicationID: id, doseAt: scheduledAt)
/// await journal.close()
/// ```
public final class DoseJournal: Sendable {
    let database: VaultDatabase
    /// Where "now" comes from (a snooze's end, an entry's time).
    public let clock: RecordClock

    init(database: VaultDatabase, clock: RecordClock) {
        self.database = database
        self.clock = clock
    }

    /// Opens the journal of the vault in `folder`.
    ///
    /// - Throws: `MedVaultError/Code/notFound` (field `journal`) when the vault has no
    ///   journal for `key` (never issued, revoked, or replaced by a newer key: such a key
    ///   opens nothing).
    public static func open(in folder: URL, key: DoseJournalKey, clock: RecordClock = .system) async throws
        -> DoseJournal
    {
        let url = try VaultLayout(folder: folder).doseJournal(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MedVaultError(.notFound, field: "journal", reason: "this vault has no dose journal")
        }
        let database = try await VaultDatabase.open(at: url, key: key.secret, mode: .openExisting,
                                                    migrator: DoseJournalSchema.migrator)
        return DoseJournal(database: database, clock: clock)
    }

    /// Closes the journal.
    public func close() async { await database.close() }

    // MARK: - Reading the plan

    /// The planned doses due in `[from, until)`, by instant then medication, with what
    /// the journal recorded for each.
    ///
    /// - Throws: `MedVaultError/Code/invalidArgument` when `until` is before `from` or
    ///   either is not a plausible instant.
    public func plannedDoses(from: Date, until: Date) async throws -> [PlannedDose] {
        try await database.read { db in try DoseJournalSQL.plannedDoses(from: from, until: until, db) }
    }

    /// The window the plan covers, or `nil` before the vault wrote one.
    public func planWindow() async throws -> Range<Date>? {
        try await database.read { db in try DoseJournalSQL.planWindow(db) }
    }

    // MARK: - Recording

    /// Records the planned dose at `scheduledAt` as taken at `takenAt` (default now).
    ///
    /// - Throws: `MedVaultError/Code/validation` (field `scheduledAt`) when the plan
    ///   has no such dose; `MedVaultError/Code/duplicate` when the journal has a log
    ///   for it already; `MedVaultError/Code/invalidArgument` (field `takenAt`) for an
    ///   implausible instant. Nothing is written on error.
    public func logTaken(medicationID: UUID, doseAt scheduledAt: Date, takenAt: Date? = nil) async throws {
        let takenAt = takenAt ?? clock.now()
        guard ReminderPlanner.isPlausible(takenAt) else {
            throw MedVaultError(.invalidArgument, field: "takenAt", reason: "is not a plausible instant")
        }
        let entry = DoseJournalEntry(kind: .log, medicationID: medicationID, scheduledAt: scheduledAt,
                                     status: .taken, takenAt: takenAt.truncatedToMilliseconds, recordedAt: clock.now())
        try await database.write { db in try DoseJournalSQL.append(entry, db) }
    }

    /// Records the planned dose at `scheduledAt` as skipped for `reason`.
    ///
    /// - Throws: As ``logTaken(medicationID:doseAt:takenAt:)``.
    public func logSkipped(medicationID: UUID, doseAt scheduledAt: Date, reason: SkipReason) async throws {
        let entry = DoseJournalEntry(kind: .log, medicationID: medicationID, scheduledAt: scheduledAt,
                                     status: .skipped, skipReason: reason, recordedAt: clock.now())
        try await database.write { db in try DoseJournalSQL.append(entry, db) }
    }

    /// Snoozes the planned dose at `scheduledAt`: its reminder fires again the plan's
    /// snooze length after now.
    ///
    /// - Returns: When the reminder fires again.
    /// - Throws: `MedVaultError/Code/validation` (field `scheduledAt`) when the plan
    ///   has no such dose; `MedVaultError/Code/duplicate` when it is logged in the
    ///   journal; `MedVaultError/Code/limitExceeded` (field `reminders.maximumSnoozes`)
    ///   past the schedule's maximum.
    @discardableResult
    public func snooze(medicationID: UUID, doseAt scheduledAt: Date) async throws -> Date {
        let now = clock.now()
        return try await database.write { db in
            try DoseJournalSQL.snooze(medicationID: medicationID, doseAt: scheduledAt, now: now, db)
        }
    }
}
