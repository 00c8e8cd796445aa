import Foundation
import MedVaultCore
import MedVaultKeys

/// The dose journal (docs/extensions.md): a limited key for extensions, the plan they
/// read, and the merge of what they logged.
extension Vault {
    /// The longest plan a journal holds, in days.
    public static let maximumDoseJournalDays = 31

    /// Issues a new dose journal key and creates the journal with the plan of the next
    /// `planDays` days. A journal issued before is merged, then removed: its key opens
    /// nothing from then on.
    ///
    /// For example:
    ///
    /// ```swift
    /// let key = try await vault.issueDoseJournalKey(planDays: 7, timeZone: .current)
    /// try keychain.store(key.secret, account: "dose-journal") // shared with the extensions
    /// key.wipe()
    /// ```
    ///
    /// - Parameters:
    ///   - planDays: How many days of doses the plan holds, 1 through 31 (default 7).
    ///     Every merge and ``refreshDoseJournalPlan()`` writes it again from now on.
    ///   - timeZone: The zone of frequency-derived doses (default GMT).
    /// - Returns: The key, in secure memory the caller wipes.
    /// - Throws: `MedVaultError/Code/invalidArgument` (field `planDays`); `locked`;
    ///   storage errors. On error the previous journal, if any, may be merged already.
    public func issueDoseJournalKey(planDays: Int = 7, timeZone: TimeZone = .gmt) async throws -> DoseJournalKey {
        guard (1...Self.maximumDoseJournalDays).contains(planDays) else {
            throw MedVaultError(.invalidArgument, field: "planDays", reason: "must be between 1 and 31")
        }
        return try await withDoseJournalLock {
            try await revokeDoseJournal()
            // The new journal is made whole under a temporary name, then its key is stored
            // and the file renamed into place in one vault transaction: the stored key
            // and the file in place always match.
            let key = SecureBytes.random(count: 32)
            let now = options.clock.now()
            let staging = layout.doseJournalStaging
            Self.removeDoseJournalFiles(at: staging)
            let journal = try await VaultDatabase.open(at: staging, key: key, mode: .createIfMissing,
                                                       migrator: DoseJournalSchema.migrator)
            let planUntil = now.addingTimeInterval(TimeInterval(planDays) * 86_400)
            do {
                try await writePlan(into: journal, days: planDays, timeZone: timeZone)
            } catch {
                await journal.close()
                Self.removeDoseJournalFiles(at: staging)
                throw error
            }
            await journal.close()
            let target = layout.doseJournal
            try await database.write { db in
                var bytes = try key.withUnsafeBytes { Data($0) }
                defer { bytes.resetBytes(in: 0..<bytes.count) }
                try db.execute("""
                    INSERT OR REPLACE INTO dose_journal_state \
                    (singleton, journal_key, plan_days, time_zone, issued_at, plan_until) VALUES (1, ?, ?, ?, ?, ?)
                    """, [.blob(bytes), .integer(Int64(planDays)), .text(timeZone.identifier), now.vaultValue,
                          planUntil.vaultValue])
                try Self.moveDoseJournalFiles(from: staging, to: target)
            }
            return try DoseJournalKey(key)
        }
    }

    /// Removes the journal and its key, then merges what it held: the key an extension
    /// holds opens nothing from then on. Does nothing when there is no journal.
    ///
    /// The journal is moved aside and its key deleted first, in one vault transaction, so
    /// a journal that cannot be read (damaged, or written by a hostile key holder) is
    /// revoked all the same. Its entries are then merged as ``mergeDoseJournal()`` does,
    /// where they can be, and the file is deleted. Entries an extension appends while
    /// the revocation runs, and those of a revocation killed before its merge, are
    /// dropped: revocation is for a lost or compromised extension.
    public func revokeDoseJournalKey() async throws {
        try await withDoseJournalLock { try await revokeDoseJournal() }
    }

    /// Writes the journal's plan again (after the medications or schedules changed), from
    /// now on for the issued number of days. Does nothing when there is no journal.
    public func refreshDoseJournalPlan() async throws {
        try await withDoseJournalLock {
            guard let state = try await doseJournalState() else { return }
            defer { state.key.wipe() }
            guard let journal = try await openDoseJournal(at: layout.doseJournal, key: state.key) else { return }
            do {
                try await writePlan(into: journal, days: state.days, timeZone: state.timeZone)
            } catch {
                await journal.close()
                throw error
            }
            await journal.close()
        }
    }

    /// Applies what extensions recorded in the journal, each entry exactly once, then
    /// removes the entries from the journal and writes its plan again. Runs at every
    /// unlock too; an error there leaves the entries in the journal, and this method,
    /// called again, throws it.
    ///
    /// A logged dose is stored as a dose log with the entry's id, as
    /// `medications.doseLogs.create` would store it (stock, adherence, change log and
    /// audit trail follow); a snooze is stored unless the dose is logged. An entry must be
    /// a dose the vault expects of an active medication, within the plan's window. An
    /// entry the vault refuses (not such a dose, the dose logged meanwhile, a damaged or
    /// implausible row) is counted in the report, recorded in `dose_journal_merged` with
    /// its error code, removed from the journal and not tried again. Each entry's id is
    /// recorded in the vault in the same transaction, so an entry seen again after a merge
    /// was killed before cleaning the journal is skipped.
    ///
    /// - Returns: What was merged.
    /// - Throws: `locked`; `vaultInUse` when another process holds the journal's lock past
    ///   the vault's lock timeout; storage errors of either file (nothing is applied then).
    @discardableResult
    public func mergeDoseJournal() async throws -> DoseJournalMergeReport {
        try await withDoseJournalLock {
            guard let state = try await doseJournalState() else { return DoseJournalMergeReport() }
            defer { state.key.wipe() }
            return try await merge(at: layout.doseJournal, state: state, rewritingPlan: true)
        }
    }

    // MARK: - Internals

    private struct DoseJournalState {
        let key: SecureBytes
        let days: Int
        let timeZone: TimeZone
        let planUntil: Date?
    }

    /// Runs `body` holding the journal's lock file exclusively: one issue, revocation,
    /// merge or plan at a time, across processes.
    private func withDoseJournalLock<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        let lock = try VaultFileLock(layout.doseJournalLock)
        defer { lock.release() }
        try await lock.lock(.exclusive, timeout: options.lockTimeout,
                            waitingFor: "another process is merging or re-issuing the dose journal")
        return try await body()
    }

    /// ``revokeDoseJournalKey()``'s work, the lock held.
    private func revokeDoseJournal() async throws {
        let revoked = layout.doseJournalRevoked
        Self.removeDoseJournalFiles(at: revoked)
        let journal = layout.doseJournal
        let state = try await doseJournalState()
        try await database.write { db in
            try db.execute("DELETE FROM dose_journal_state")
            try Self.moveDoseJournalFiles(from: journal, to: revoked)
        }
        if let state {
            defer { state.key.wipe() }
            _ = try? await merge(at: revoked, state: state, rewritingPlan: false)
        }
        Self.removeDoseJournalFiles(at: revoked)
    }

    /// Merges the journal at `url` (see ``mergeDoseJournal()``).
    private func merge(at url: URL, state: DoseJournalState, rewritingPlan: Bool) async throws -> DoseJournalMergeReport {
        guard let journal = try await openDoseJournal(at: url, key: state.key) else { return DoseJournalMergeReport() }
        do {
            let read = try await journal.read { db in try DoseJournalSQL.entries(db) }
            let clock = options.clock
            let context = DoseJournalMerge.Context(timeZone: state.timeZone, planUntil: state.planUntil)
            var report = try await database.write(duration: .long) { db in
                try DoseJournalMerge.apply(read.entries, context: context, clock: clock, in: db)
            }
            if !read.damaged.isEmpty { report.refused[.corrupted, default: 0] += read.damaged.count }
            try await journal.write { db in try DoseJournalSQL.remove(read.entries.map(\.id), rowids: read.damaged, db) }
            if rewritingPlan { try await writePlan(into: journal, days: state.days, timeZone: state.timeZone) }
            await journal.close()
            return report
        } catch {
            await journal.close()
            throw error
        }
    }

    private func doseJournalState() async throws -> DoseJournalState? {
        try await database.read { db in
            try db.fetchOne("SELECT journal_key, plan_days, time_zone, plan_until FROM dose_journal_state") { row in
                var bytes = row.blob(at: 0)
                defer { bytes.resetBytes(in: 0..<bytes.count) }
                return DoseJournalState(key: SecureBytes(copying: bytes), days: Int(row.int64(at: 1)),
                                        timeZone: TimeZone(identifier: row.text(at: 2)) ?? .gmt,
                                        planUntil: row.isNull(at: 3) ? nil : try row[3])
            }
        }
    }

    /// The SQLite files of a journal at `url`: the database and its companions.
    private static func doseJournalFiles(_ url: URL) -> [String] {
        ["", "-wal", "-shm", "-journal"].map { url.path + $0 }
    }

    private static func removeDoseJournalFiles(at url: URL) {
        for path in doseJournalFiles(url) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Renames the journal at `source` (and its companions) to `target`, replacing it.
    private static func moveDoseJournalFiles(from source: URL, to target: URL) throws {
        for (from, to) in zip(doseJournalFiles(source), doseJournalFiles(target)) {
            if rename(from, to) != 0, errno != ENOENT {
                throw MedVaultError(.storage, reason: "the dose journal could not be moved (errno \(errno))")
            }
        }
    }

    /// The journal under `key`, or `nil` when its file is gone (removed with the vault's
    /// files, or never created because an issue stopped half way).
    private func openDoseJournal(at url: URL, key: SecureBytes) async throws -> VaultDatabase? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: DoseJournalSchema.migrator)
    }

    /// Replaces the journal's plan with the expected doses, not logged in the vault, of
    /// every active medication from now for `days` days, and records its end in the
    /// vault (a merge refuses entries past it).
    private func writePlan(into journal: VaultDatabase, days: Int, timeZone: TimeZone) async throws {
        let now = options.clock.now()
        let window = now..<now.addingTimeInterval(TimeInterval(days) * 86_400)
        let patients = try await database.read { db in
            try db.fetchAll("SELECT DISTINCT patient_id FROM medication WHERE is_active = 1") { try UUID(row: $0, column: 0) }
        }
        var plan: [(dose: ExpectedDose, medication: Medication, settings: ReminderSettings)] = []
        for patient in patients {
            let inputs = try await medications.doseInputs(forPatient: patient, medicationID: nil, in: window)
            let logged = Set(inputs.logs.map {
                ScheduledDose.ID(medicationID: $0.medicationID, scheduledAtMilliseconds: $0.scheduledAt.millisecondsSince1970)
            })
            let settings = Dictionary(inputs.schedules.map { ($0.id, $0.reminders) }, uniquingKeysWith: { first, _ in first })
            for medication in inputs.medications where medication.isActive {
                let schedules = inputs.schedules.filter { $0.medicationID == medication.id }
                for dose in DoseExpansion.expectedDoses(for: medication, schedules: schedules, in: window,
                                                        fallbackTimeZone: timeZone)
                where !logged.contains(ScheduledDose.ID(medicationID: dose.medicationID,
                                                        scheduledAtMilliseconds: dose.scheduledAt.millisecondsSince1970)) {
                    plan.append((dose, medication, dose.scheduleID.flatMap { settings[$0] } ?? .standard))
                }
            }
        }
        let doses = plan
        try await journal.write { db in try DoseJournalSQL.writePlan(doses, window: window, now: now, db) }
        try await database.write { db in
            try db.execute("UPDATE dose_journal_state SET plan_until = max(coalesce(plan_until, 0), ?)",
                           [window.upperBound.vaultValue])
        }
    }
}
