import Foundation
import MedVaultCore

/// The dose journal's statements, on a connection to the journal file.
enum DoseJournalSQL {
    static let planColumns = """
        medication_id, scheduled_at, name, dosage_amount, dosage_unit, label, amount, schedule_id, \
        snooze_minutes, maximum_snoozes
        """
    static let entryColumns = """
        id, kind, medication_id, scheduled_at, status, taken_at, skip_reason, snoozed_until, snooze_count, recorded_at
        """

    // MARK: - The plan

    static func plannedDoses(from: Date, until: Date, _ db: DatabaseConnection) throws -> [PlannedDose] {
        guard from <= until, ReminderPlanner.isPlausible(from), ReminderPlanner.isPlausible(until) else {
            throw MedVaultError(.invalidArgument, reason: "the window must be plausible instants, its end after its start")
        }
        var doses = try db.fetchAll("""
            SELECT \(planColumns) FROM journal_plan WHERE scheduled_at >= ? AND scheduled_at < ? \
            ORDER BY scheduled_at, medication_id
            """, [from.vaultValue, until.vaultValue]) { row in
            PlannedDose(medicationID: try row[0], medicationName: row.text(at: 2),
                        dosage: Dosage(amount: MedicationQuantity(thousandths: row.int64(at: 3)),
                                       unit: DosageUnit(rawValue: row.text(at: 4))),
                        scheduledAt: try row[1], label: row.isNull(at: 5) ? nil : row.text(at: 5),
                        amount: row.isNull(at: 6) ? nil : MedicationQuantity(thousandths: row.int64(at: 6)),
                        scheduleID: row.isNull(at: 7) ? nil : try row[7])
        }
        var index: [ScheduledDose.ID: Int] = [:]
        for (position, dose) in doses.enumerated() { index[dose.id] = position }
        try db.forEachRow("""
            SELECT kind, medication_id, scheduled_at, status, snoozed_until FROM journal_entry \
            WHERE scheduled_at >= ? AND scheduled_at < ? ORDER BY recorded_at
            """, [from.vaultValue, until.vaultValue]) { row in
            let id = ScheduledDose.ID(medicationID: try row[1], scheduledAtMilliseconds: row.int64(at: 2))
            guard let position = index[id] else { return true }
            if row.text(at: 0) == DoseJournalEntry.Kind.log.rawValue {
                doses[position].journalStatus = DoseStatus(rawValue: row.text(at: 3))
            } else {
                doses[position].snoozedUntil = try row[4]
            }
            return true
        }
        return doses
    }

    static func planWindow(_ db: DatabaseConnection) throws -> Range<Date>? {
        try db.fetchOne("SELECT plan_from, plan_until FROM journal_plan_info") { row in
            (try row[0] as Date)..<(try row[1] as Date)
        }
    }

    /// Replaces the plan with `doses`, the expected doses of `window`.
    static func writePlan(_ doses: [(dose: ExpectedDose, medication: Medication, settings: ReminderSettings)],
                          window: Range<Date>, now: Date, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM journal_plan")
        let insert = "INSERT INTO journal_plan (\(planColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        for (dose, medication, settings) in doses {
            try db.execute(insert, [
                dose.medicationID.vaultValue, dose.scheduledAt.vaultValue, .text(medication.name),
                .integer(medication.dosage.amount.thousandths), .text(medication.dosage.unit.rawValue),
                dose.label.map(VaultValue.text) ?? .null, dose.amount.map { .integer($0.thousandths) } ?? .null,
                dose.scheduleID?.vaultValue ?? .null, .integer(Int64(settings.snoozeMinutes)),
                .integer(Int64(settings.maximumSnoozes)),
            ])
        }
        try db.execute("""
            INSERT OR REPLACE INTO journal_plan_info (singleton, written_at, plan_from, plan_until) VALUES (1, ?, ?, ?)
            """, [now.vaultValue, window.lowerBound.vaultValue, window.upperBound.vaultValue])
    }

    // MARK: - Entries

    /// The plan's row for a dose: its snooze settings.
    private static func planned(_ medicationID: UUID, _ scheduledAt: Date, _ db: DatabaseConnection) throws
        -> ReminderSettings
    {
        guard ReminderPlanner.isPlausible(scheduledAt), let settings = try db.fetchOne("""
            SELECT snooze_minutes, maximum_snoozes FROM journal_plan WHERE medication_id = ? AND scheduled_at = ?
            """, [medicationID.vaultValue, scheduledAt.truncatedToMilliseconds.vaultValue], { row in
            ReminderSettings(snoozeMinutes: Int(row.int64(at: 0)), maximumSnoozes: Int(row.int64(at: 1)))
        }) else {
            throw MedVaultError.validation("scheduledAt", "is not a dose of the plan")
        }
        return settings
    }

    private static func isLogged(_ medicationID: UUID, _ scheduledAt: Date, _ db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM journal_entry WHERE kind = 'log' AND medication_id = ? AND scheduled_at = ?",
                        [medicationID.vaultValue, scheduledAt.truncatedToMilliseconds.vaultValue]) { _ in true } ?? false
    }

    static func append(_ entry: DoseJournalEntry, _ db: DatabaseConnection) throws {
        if let takenAt = entry.takenAt, !ReminderPlanner.isPlausible(takenAt) {
            throw MedVaultError(.invalidArgument, field: "takenAt", reason: "is not a plausible instant")
        }
        _ = try planned(entry.medicationID, entry.scheduledAt, db)
        if entry.kind == .log, try isLogged(entry.medicationID, entry.scheduledAt, db) {
            throw MedVaultError.doseAlreadyLogged
        }
        try insert(entry, db)
    }

    static func snooze(medicationID: UUID, doseAt scheduledAt: Date, now: Date, _ db: DatabaseConnection) throws -> Date {
        let settings = try planned(medicationID, scheduledAt, db)
        if try isLogged(medicationID, scheduledAt, db) { throw MedVaultError.doseAlreadyLogged }
        let count = try db.fetchOne("""
            SELECT count(*) FROM journal_entry WHERE kind = 'snooze' AND medication_id = ? AND scheduled_at = ?
            """, [medicationID.vaultValue, scheduledAt.truncatedToMilliseconds.vaultValue]) { $0.int64(at: 0) } ?? 0
        let snooze = try ReminderPlanner.snoozed(medicationID: medicationID, scheduledAt: scheduledAt,
                                                 existing: count == 0 ? nil : DoseSnooze(
                                                    medicationID: medicationID, scheduledAt: scheduledAt,
                                                    snoozedUntil: now, count: Int(count)),
                                                 settings: settings, now: now)
        try insert(DoseJournalEntry(kind: .snooze, medicationID: medicationID, scheduledAt: snooze.scheduledAt,
                                    snoozedUntil: snooze.snoozedUntil, snoozeCount: snooze.count, recordedAt: now), db)
        return snooze.snoozedUntil
    }

    private static func insert(_ entry: DoseJournalEntry, _ db: DatabaseConnection) throws {
        try db.execute("INSERT INTO journal_entry (\(entryColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            entry.id.vaultValue, .text(entry.kind.rawValue), entry.medicationID.vaultValue,
            entry.scheduledAt.truncatedToMilliseconds.vaultValue, entry.status.map { .text($0.rawValue) } ?? .null,
            entry.takenAt?.vaultValue ?? .null, entry.skipReason.map { .text($0.rawValue) } ?? .null,
            entry.snoozedUntil?.vaultValue ?? .null, entry.snoozeCount.map { .integer(Int64($0)) } ?? .null,
            entry.recordedAt.vaultValue,
        ])
    }

    /// Every entry, in the order appended, and the rowids of rows that are not entries (a
    /// damaged row, an implausible instant, an unknown kind: only a key holder can write
    /// them, and the merge refuses them).
    static func entries(_ db: DatabaseConnection) throws -> (entries: [DoseJournalEntry], damaged: [Int64]) {
        var entries: [DoseJournalEntry] = []
        var damaged: [Int64] = []
        try db.forEachRow("SELECT \(entryColumns), rowid FROM journal_entry ORDER BY rowid") { row in
            if let entry = try? entry(row) { entries.append(entry) } else { damaged.append(row.int64(at: 10)) }
            return true
        }
        return (entries, damaged)
    }

    private static func entry(_ row: VaultRow) throws -> DoseJournalEntry {
        func instant(_ column: Int32) throws -> Date? {
            guard !row.isNull(at: column) else { return nil }
            let date = Date(timeIntervalSince1970: Double(row.int64(at: column)) / 1000)
            guard ReminderPlanner.isPlausible(date) else { throw MedVaultError(.corrupted, reason: "an implausible instant") }
            return date
        }
        guard let kind = DoseJournalEntry.Kind(rawValue: row.text(at: 1)), row.blob(at: 0).count == 16,
              row.blob(at: 2).count == 16, let scheduledAt = try instant(3), let recordedAt = try instant(9) else {
            throw MedVaultError(.corrupted, reason: "a damaged dose journal entry")
        }
        // What `DoseJournal` writes: a log taken (when) or skipped (why), a snooze (until, count).
        let status = row.isNull(at: 4) ? nil : DoseStatus(rawValue: row.text(at: 4))
        let wellFormed = switch kind {
        case .log: (status == .taken && !row.isNull(at: 5)) || (status == .skipped && !row.isNull(at: 6))
        case .snooze: !row.isNull(at: 7) && !row.isNull(at: 8)
        }
        guard wellFormed else { throw MedVaultError(.corrupted, reason: "a damaged dose journal entry") }
        return DoseJournalEntry(
            id: try row[0], kind: kind, medicationID: try row[2], scheduledAt: scheduledAt,
            status: row.isNull(at: 4) ? nil : DoseStatus(rawValue: row.text(at: 4)),
            takenAt: try instant(5), skipReason: row.isNull(at: 6) ? nil : SkipReason(rawValue: row.text(at: 6)),
            snoozedUntil: try instant(7), snoozeCount: row.isNull(at: 8) ? nil : Int(row.int64(at: 8)),
            recordedAt: recordedAt)
    }

    /// Removes the entries with `ids` and the damaged rows `rowids`.
    static func remove(_ ids: [UUID], rowids: [Int64], _ db: DatabaseConnection) throws {
        for id in ids { try db.execute("DELETE FROM journal_entry WHERE id = ?", [id.vaultValue]) }
        for rowid in rowids { try db.execute("DELETE FROM journal_entry WHERE rowid = ?", [.integer(rowid)]) }
    }
}
