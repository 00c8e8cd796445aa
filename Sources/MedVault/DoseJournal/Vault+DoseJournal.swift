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
        try await revokeDoseJournalKey()
        let key = SecureBytes.random(count: 32)
        let now = options.clock.now()
        try await database.write { db in
            try key.withUnsafeBytes { bytes in
                try db.execute("""
                    INSERT OR REPLACE INTO dose_journal_state (singleton, journal_key, plan_days, time_zone, issued_at) \
                    VALUES (1, ?, ?, ?, ?)
                    """, [.blob(Data(bytes)), .integer(Int64(planDays)), .text(timeZone.identifier), now.vaultValue])
            }
        }
        let journal = try await VaultDatabase.open(at: layout.doseJournal, key: key, mode: .createIfMissing,
                                                   migrator: DoseJournalSchema.migrator)
        do {
            try await writePlan(into: journal, days: planDays, timeZone: timeZone)
        } catch {
            await journal.close()
            throw error
        }
        await journal.close()
        return try DoseJournalKey(key)
    }

    /// Merges the journal, then removes it and its key: the key an extension holds opens
    /// nothing from then on. Does nothing when there is no journal.
    ///
    /// - Throws: As ``mergeDoseJournal()``; nothing is removed when the merge fails.
    public func revokeDoseJournalKey() async throws {
        try await mergeDoseJournal()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: layout.doseJournal.path + suffix)
        }
        try await database.write { db in try db.execute("DELETE FROM dose_journal_state") }
    }

    /// Writes the journal's plan again (after the medications or schedules changed), from
    /// now on for the issued number of days. Does nothing when there is no journal.
    public func refreshDoseJournalPlan() async throws {
        guard let state = try await doseJournalState() else { return }
        defer { state.key.wipe() }
        guard let journal = try await openDoseJournal(state.key) else { return }
        do {
            try await writePlan(into: journal, days: state.days, timeZone: state.timeZone)
        } catch {
            await journal.close()
            throw error
        }
        await journal.close()
    }

    /// Applies what extensions recorded in the journal, each entry exactly once, then
    /// removes the entries from the journal and writes its plan again. Runs at every
    /// unlock too (an error there leaves the entries for the next merge).
    ///
    /// A logged dose is stored as a dose log with the entry's id, as
    /// `medications.doseLogs.create` would store it (stock, adherence, change log and
    /// audit trail follow); a snooze is stored unless the dose is logged. An entry the
    /// vault refuses (the dose logged meanwhile, the medication gone) is counted in the
    /// report and not tried again. Each entry's id is recorded in the vault in the same
    /// transaction, so an entry seen again after a merge was killed before cleaning the
    /// journal is skipped.
    ///
    /// - Returns: What was merged.
    /// - Throws: `locked`; storage errors of either file (nothing is applied then).
    @discardableResult
    public func mergeDoseJournal() async throws -> DoseJournalMergeReport {
        guard let state = try await doseJournalState() else { return DoseJournalMergeReport() }
        defer { state.key.wipe() }
        guard let journal = try await openDoseJournal(state.key) else { return DoseJournalMergeReport() }
        do {
            let entries = try await journal.read { db in try DoseJournalSQL.entries(db) }
            let clock = options.clock
            let report = try await database.write(duration: .long) { db in
                try DoseJournalMerge.apply(entries, clock: clock, in: db)
            }
            try await journal.write { db in try DoseJournalSQL.remove(entries.map(\.id), db) }
            try await writePlan(into: journal, days: state.days, timeZone: state.timeZone)
            await journal.close()
            return report
        } catch {
            await journal.close()
            throw error
        }
    }

    // MARK: - Internals

    private struct DoseJournalState {
        let key: SecureBytes
        let days: Int
        let timeZone: TimeZone
    }

    private func doseJournalState() async throws -> DoseJournalState? {
        try await database.read { db in
            try db.fetchOne("SELECT journal_key, plan_days, time_zone FROM dose_journal_state") { row in
                var bytes = row.blob(at: 0)
                defer { bytes.resetBytes(in: 0..<bytes.count) }
                return DoseJournalState(key: SecureBytes(copying: bytes), days: Int(row.int64(at: 1)),
                                        timeZone: TimeZone(identifier: row.text(at: 2)) ?? .gmt)
            }
        }
    }

    /// The journal under `key`, or `nil` when its file is gone (removed with the vault's
    /// files, or never created because an issue stopped half way).
    private func openDoseJournal(_ key: SecureBytes) async throws -> VaultDatabase? {
        guard FileManager.default.fileExists(atPath: layout.doseJournal.path) else { return nil }
        return try await VaultDatabase.open(at: layout.doseJournal, key: key, mode: .openExisting,
                                            migrator: DoseJournalSchema.migrator)
    }

    /// Replaces the journal's plan with the expected doses, not logged in the vault, of
    /// every active medication from now for `days` days.
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
    }
}
