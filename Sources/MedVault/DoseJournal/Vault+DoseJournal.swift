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
            let key = try DoseJournalKey(SecureBytes.random(count: 32))
            let url = try layout.doseJournal(for: key)
            let journal = try await VaultDatabase.open(at: url, key: key.secret, mode: .createIfMissing,
                                                       migrator: DoseJournalSchema.migrator)
            do {
                let now = options.clock.now()
                let planUntil = try await writePlan(into: journal, days: planDays, timeZone: timeZone)
                // The key is stored last: until then the file is an orphan the next issue
                // or revocation removes.
                try await database.write { db in
                    var bytes = try key.secret.withUnsafeBytes { Data($0) }
                    defer { bytes.resetBytes(in: 0..<bytes.count) }
                    try db.execute("""
                        INSERT OR REPLACE INTO dose_journal_state \
                        (singleton, journal_key, plan_days, time_zone, issued_at, plan_until) VALUES (1, ?, ?, ?, ?, ?)
                        """, [.blob(bytes), .integer(Int64(planDays)), .text(timeZone.identifier), now.vaultValue,
                              planUntil.vaultValue])
                }
            } catch {
                await journal.close()
                Self.removeFiles(of: url)
                throw error
            }
            await journal.close()
            return key
        }
    }

    /// Merges the journal, then removes it and its key: the key an extension holds opens
    /// nothing from then on. Does nothing when there is no journal.
    ///
    /// A journal that cannot be read (damaged, or rewritten by a hostile key holder) is
    /// revoked all the same, its entries lost. Entries an extension appends while the
    /// revocation runs are dropped: revocation is for a lost or compromised extension.
    ///
    /// - Throws: The vault's storage errors while merging: nothing is revoked then.
    public func revokeDoseJournalKey() async throws {
        try await withDoseJournalLock { try await revokeDoseJournal() }
    }

    /// Writes the journal's plan again (after the medications or schedules changed), from
    /// now on for the issued number of days. Does nothing when there is no journal.
    public func refreshDoseJournalPlan() async throws {
        try await withDoseJournalLock {
            guard let state = try await doseJournalState() else { return }
            defer { state.key.wipe() }
            guard let journal = try await openDoseJournal(state.key) else { return }
            do {
                _ = try await writePlan(into: journal, days: state.days, timeZone: state.timeZone)
            } catch {
                await journal.close()
                throw error
            }
            await journal.close()
        }
    }

    /// Applies what extensions recorded in the journal, each entry exactly once, then
    /// removes the entries from the journal and writes its plan again. Runs at every
    /// unlock too (skipped when another process is merging); an error there leaves the
    /// entries in the journal, and this method, called again, throws it.
    ///
    /// A logged dose is stored as a dose log with the entry's id, as
    /// `medications.doseLogs.create` would store it (stock, adherence, change log and
    /// audit trail follow); a snooze is stored unless the dose is logged. An entry must be
    /// a dose the vault expects of the medication, between the journal's issue and the end
    /// of the latest plan. An entry the vault refuses (not such a dose — the schedule was
    /// revised meanwhile —, the dose logged meanwhile, a damaged or implausible row) is
    /// counted in the report, recorded in `dose_journal_merged` with its error code,
    /// removed from the journal and not tried again. Each entry's id is recorded in the
    /// vault in the same transaction, so an entry seen again after a merge was killed
    /// before cleaning the journal is skipped.
    ///
    /// - Returns: What was merged.
    /// - Throws: `locked`; `vaultInUse` when another process holds the journal's lock past
    ///   the vault's lock timeout; storage errors of either file (nothing is applied then).
    @discardableResult
    public func mergeDoseJournal() async throws -> DoseJournalMergeReport {
        try await withDoseJournalLock { try await mergeDoseJournalHoldingLock() }
    }

    /// The merge an unlock runs: at once, or not at all when another process holds the
    /// journal's lock (it is merging or re-issuing).
    func mergeDoseJournalAtUnlock() async throws {
        try await ifDoseJournalLockIsFree { _ = try await mergeDoseJournalHoldingLock() }
    }

    // MARK: - Internals

    private struct DoseJournalState {
        let key: DoseJournalKey
        let days: Int
        let timeZone: TimeZone
        let issuedAt: Date
        let planUntil: Date?

        var context: DoseJournalMerge.Context {
            DoseJournalMerge.Context(timeZone: timeZone, issuedAt: issuedAt, planUntil: planUntil)
        }
    }

    /// Runs `body` holding the journal's lock file exclusively: one issue, revocation,
    /// merge or plan at a time, across processes. Waits up to the vault's lock timeout.
    private func withDoseJournalLock<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        let lock = try VaultFileLock(layout.doseJournalLock)
        defer { lock.release() }
        try await lock.lock(.exclusive, timeout: options.lockTimeout,
                            waitingFor: "another process is merging or re-issuing the dose journal")
        return try await body()
    }

    /// Runs `body` holding the journal's lock if nobody holds it; does nothing otherwise.
    private func ifDoseJournalLockIsFree(_ body: () async throws -> Void) async throws {
        let lock = try VaultFileLock(layout.doseJournalLock)
        defer { lock.release() }
        guard try lock.tryLock(.exclusive) else { return }
        try await body()
    }

    private func mergeDoseJournalHoldingLock() async throws -> DoseJournalMergeReport {
        guard let state = try await doseJournalState() else { return DoseJournalMergeReport() }
        defer { state.key.wipe() }
        guard let journal = try await openDoseJournal(state.key) else { return DoseJournalMergeReport() }
        do {
            let read = try await journal.read { db in try DoseJournalSQL.entries(db) }
            var report = try await apply(read.entries, state: state)
            if !read.damaged.isEmpty { report.refused[.corrupted, default: 0] += read.damaged.count }
            try await journal.write { db in try DoseJournalSQL.remove(read.entries.map(\.id), rowids: read.damaged, db) }
            _ = try await writePlan(into: journal, days: state.days, timeZone: state.timeZone)
            await journal.close()
            return report
        } catch {
            await journal.close()
            throw error
        }
    }

    private func apply(_ entries: [DoseJournalEntry], state: DoseJournalState) async throws -> DoseJournalMergeReport {
        let clock = options.clock
        let context = state.context
        return try await database.write(duration: .long) { db in
            try DoseJournalMerge.apply(entries, context: context, clock: clock, in: db)
        }
    }

    /// ``revokeDoseJournalKey()``'s work, the lock held: merge what can be read (a vault
    /// error stops here, nothing revoked), forget the key, delete every journal file.
    private func revokeDoseJournal() async throws {
        if let state = try await doseJournalState() {
            defer { state.key.wipe() }
            if let journal = try? await openDoseJournal(state.key) {
                let read = try? await journal.read { db in try DoseJournalSQL.entries(db) }
                await journal.close()
                if let read { _ = try await apply(read.entries, state: state) }
            }
            try await database.write { db in try db.execute("DELETE FROM dose_journal_state") }
        }
        for file in layout.doseJournalFiles() { try? FileManager.default.removeItem(at: file) }
    }

    private func doseJournalState() async throws -> DoseJournalState? {
        try await database.read { db in
            try db.fetchOne("""
                SELECT journal_key, plan_days, time_zone, issued_at, plan_until FROM dose_journal_state
                """) { row in
                var bytes = row.blob(at: 0)
                defer { bytes.resetBytes(in: 0..<bytes.count) }
                return DoseJournalState(key: try DoseJournalKey(SecureBytes(copying: bytes)), days: Int(row.int64(at: 1)),
                                        timeZone: TimeZone(identifier: row.text(at: 2)) ?? .gmt,
                                        issuedAt: try row[3], planUntil: row.isNull(at: 4) ? nil : try row[4])
            }
        }
    }

    /// Removes the journal database at `url` and its companions.
    private static func removeFiles(of url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// The journal under `key`, or `nil` when its file is gone.
    private func openDoseJournal(_ key: DoseJournalKey) async throws -> VaultDatabase? {
        let url = try layout.doseJournal(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await VaultDatabase.open(at: url, key: key.secret, mode: .openExisting,
                                            migrator: DoseJournalSchema.migrator)
    }

    /// Replaces the journal's plan with the expected doses, not logged in the vault, of
    /// every active medication from now for `days` days, and records its end in the
    /// vault (a merge refuses entries past it).
    ///
    /// - Returns: The plan's end.
    private func writePlan(into journal: VaultDatabase, days: Int, timeZone: TimeZone) async throws -> Date {
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
        // The vault first: a dose the journal shows is never past the end the vault knows.
        try await database.write { db in
            try db.execute("UPDATE dose_journal_state SET plan_until = max(coalesce(plan_until, 0), ?)",
                           [window.upperBound.vaultValue])
        }
        try await journal.write { db in try DoseJournalSQL.writePlan(doses, window: window, now: now, db) }
        return window.upperBound
    }
}
