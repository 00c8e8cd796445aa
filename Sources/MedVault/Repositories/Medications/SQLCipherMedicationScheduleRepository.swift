import Foundation
import MedVaultCore

/// The SQLCipher `MedicationScheduleRepository`: schedules in the
/// `medication_schedule` table, from ``SQLCipherMedicationStore/schedules``.
public struct SQLCipherMedicationScheduleRepository: MedicationScheduleRepository {
    /// The database.
    let pool: VaultDatabase
    /// Where "now" comes from.
    let clock: RecordClock

    static let selectByID = "SELECT \(MedicationScheduleRow.columns) FROM medication_schedule WHERE id = ?"
    static let selectByMedication = """
        SELECT \(MedicationScheduleRow.columns) FROM medication_schedule
        WHERE medication_id = ? ORDER BY created_at, id
        """
    static let selectByPatient = """
        SELECT \(MedicationScheduleRow.qualifiedColumns)
        FROM medication m JOIN medication_schedule s ON s.medication_id = m.id
        WHERE m.patient_id = ? ORDER BY s.created_at, s.id
        """

    /// Stores a new schedule for a medication.
    ///
    /// Checks, in order: the medication exists (`notFound`, field `medicationID`), the
    /// schedule is valid (`validation`), its identifier is new (`duplicate`).
    @discardableResult
    public func create(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.create(schedule, clock: clock, in: db) }
    }

    /// Saves changes to a stored schedule.
    ///
    /// Checks, in order: the schedule exists (`notFound`), it is valid (`validation`),
    /// its medication did not change (`validation`, field `medicationID`), the version
    /// is the stored one (`conflict`).
    @discardableResult
    public func update(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.update(schedule, clock: clock, in: db) }
    }

    /// The schedule with this identifier.
    public func get(_ id: UUID) async throws -> MedicationSchedule {
        try await pool.read { db in try Self.get(id, in: db) }
    }

    /// A medication's schedules, oldest first (by `createdAt`, then identifier).
    public func list(medicationID: UUID) async throws -> [MedicationSchedule] {
        try await pool.read { db in try Self.list(medicationID: medicationID, in: db) }
    }

    /// The schedules of all of a patient's medications, oldest first.
    public func list(patientID: UUID) async throws -> [MedicationSchedule] {
        try await pool.read { db in try Self.list(patientID: patientID, in: db) }
    }

    /// Starts a new version of a schedule from `day` (see the protocol).
    ///
    /// Checks, in order: the schedule exists (`notFound`), the medication did not
    /// change, `day` is after the stored version's first day, the version is the
    /// stored one (`conflict`), both versions are valid (`validation`).
    @discardableResult
    public func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.revise(schedule, effectiveFrom: day, clock: clock, in: db) }
    }

    /// Pauses a schedule (see the protocol).
    @discardableResult
    public func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.pause(id, from: from, through: through, clock: clock, in: db) }
    }

    /// Resumes a paused schedule (see the protocol).
    @discardableResult
    public func resume(_ id: UUID, on day: CalendarDate) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.resume(id, on: day, clock: clock, in: db) }
    }

    /// Ends a schedule (see the protocol).
    @discardableResult
    public func end(_ id: UUID, lastDay: CalendarDate) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in try Self.end(id, lastDay: lastDay, clock: clock, in: db) }
    }

    /// Snoozes a dose's reminder (see the protocol).
    @discardableResult
    public func snooze(scheduleID: UUID, doseAt scheduledAt: Date) async throws -> DoseSnooze {
        let clock = self.clock
        return try await pool.write { db in try Self.snooze(scheduleID: scheduleID, doseAt: scheduledAt, clock: clock, in: db) }
    }

    /// Snoozes a frequency-derived dose's reminder (see the protocol).
    @discardableResult
    public func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) async throws -> DoseSnooze {
        let clock = self.clock
        return try await pool.write { db in
            try Self.snooze(medicationID: medicationID, doseAt: scheduledAt, timeZone: timeZone, clock: clock, in: db)
        }
    }

    /// The snoozes of a patient's doses scheduled in `range`.
    public func snoozes(patientID: UUID, in range: Range<Date>) async throws -> [DoseSnooze] {
        try await pool.read { db in try Self.snoozes(patientID: patientID, in: range, db) }
    }

    // MARK: - Operations on a connection
    //
    // Run by the methods above in a transaction of their own and by
    // `SQLCipherTransactionalMedicationScheduleRepository` in a unit of work's.

    static func create(_ schedule: MedicationSchedule, clock: RecordClock,
                       in db: DatabaseConnection) throws -> MedicationSchedule {
        guard try SQLCipherMedicationStore.medicationRowID(schedule.medicationID, db) != nil else {
            throw MedVaultError.recordNotFound("medicationID")
        }
        let stored = try MedicationRecordRule.created(schedule, now: clock.now())
        if try find(stored.id, db) != nil { throw MedVaultError.duplicateRecord }
        try db.execute(MedicationScheduleRow.insert, MedicationScheduleRow.insertArguments(stored))
        try db.changeLog.append(stored, .insert)
        return stored
    }

    static func update(_ schedule: MedicationSchedule, clock: RecordClock,
                       in db: DatabaseConnection) throws -> MedicationSchedule {
        guard let current = try find(schedule.id, db) else { throw MedVaultError.recordNotFound() }
        let stored = try MedicationUpdateRule.updated(schedule, replacing: current, now: clock.now())
        try db.execute(MedicationScheduleRow.update, MedicationScheduleRow.updateArguments(stored))
        try db.changeLog.append(stored, .update)
        return stored
    }

    static func get(_ id: UUID, in db: DatabaseConnection) throws -> MedicationSchedule {
        guard let schedule = try find(id, db) else { throw MedVaultError.recordNotFound() }
        return schedule
    }

    static func list(medicationID: UUID, in db: DatabaseConnection) throws -> [MedicationSchedule] {
        try db.fetchAll(selectByMedication, [medicationID.vaultValue], MedicationScheduleRow.decode)
    }

    static func list(patientID: UUID, in db: DatabaseConnection) throws -> [MedicationSchedule] {
        try db.fetchAll(selectByPatient, [patientID.vaultValue], MedicationScheduleRow.decode)
    }

    static func find(_ id: UUID, _ db: DatabaseConnection) throws -> MedicationSchedule? {
        try db.fetchOne(selectByID, [id.vaultValue], MedicationScheduleRow.decode)
    }

    // MARK: - Lifecycle on a connection

    static func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate, clock: RecordClock,
                       in db: DatabaseConnection) throws -> MedicationSchedule {
        guard let current = try find(schedule.id, db) else { throw MedVaultError.recordNotFound() }
        let (ended, started) = try ScheduleLifecycleRule.revised(
            schedule, replacing: current, effectiveFrom: day, newID: UUID(), now: clock.now())
        try db.execute(MedicationScheduleRow.update, MedicationScheduleRow.updateArguments(ended))
        try db.execute(MedicationScheduleRow.insert, MedicationScheduleRow.insertArguments(started))
        try db.changeLog.append([ended.change(.update), started.change(.insert)])
        return started
    }

    static func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?, clock: RecordClock,
                      in db: DatabaseConnection) throws -> MedicationSchedule {
        try change(id, db) { try ScheduleLifecycleRule.paused($0, from: from, through: through, now: clock.now()) }
    }

    static func resume(_ id: UUID, on day: CalendarDate, clock: RecordClock,
                       in db: DatabaseConnection) throws -> MedicationSchedule {
        try change(id, db) { try ScheduleLifecycleRule.resumed($0, on: day, now: clock.now()) }
    }

    static func end(_ id: UUID, lastDay: CalendarDate, clock: RecordClock,
                    in db: DatabaseConnection) throws -> MedicationSchedule {
        try change(id, db) { try ScheduleLifecycleRule.ended($0, lastDay: lastDay, now: clock.now()) }
    }

    /// Reads schedule `id`, asks `rule` for the value to store, writes it.
    private static func change(_ id: UUID, _ db: DatabaseConnection,
                               _ rule: (MedicationSchedule) throws -> MedicationSchedule) throws -> MedicationSchedule {
        guard let current = try find(id, db) else { throw MedVaultError.recordNotFound() }
        let stored = try rule(current)
        try db.execute(MedicationScheduleRow.update, MedicationScheduleRow.updateArguments(stored))
        try db.changeLog.append(stored, .update)
        return stored
    }

    // MARK: - Snoozes on a connection

    static let selectSnooze = """
        SELECT medication_id, scheduled_at, snoozed_until, snooze_count FROM dose_snooze
        WHERE medication_id = ? AND scheduled_at = ?
        """
    static let selectSnoozesByPatient = """
        SELECT medication_id, scheduled_at, snoozed_until, snooze_count FROM dose_snooze
        WHERE patient_id = ? AND scheduled_at >= ? AND scheduled_at < ? ORDER BY scheduled_at, medication_id
        """
    static let replaceSnooze = """
        INSERT OR REPLACE INTO dose_snooze (medication_id, patient_id, scheduled_at, snoozed_until, snooze_count, updated_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """

    static func snooze(scheduleID: UUID, doseAt scheduledAt: Date, clock: RecordClock,
                       in db: DatabaseConnection) throws -> DoseSnooze {
        guard let schedule = try find(scheduleID, db) else { throw MedVaultError.recordNotFound() }
        let medication = try SQLCipherMedicationStore.fetchMedication(schedule.medicationID, db, field: "medicationID").medication
        return try storeSnooze(of: medication, at: scheduledAt, clock: clock, in: db) { existing, logged, now in
            try ReminderPlanner.snooze(scheduledAt, of: schedule, medication: medication,
                                       existing: existing, isLogged: logged, now: now)
        }
    }

    static func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone, clock: RecordClock,
                       in db: DatabaseConnection) throws -> DoseSnooze {
        let medication = try SQLCipherMedicationStore.fetchMedication(medicationID, db, field: "medicationID").medication
        let schedules = try list(medicationID: medicationID, in: db)
        return try storeSnooze(of: medication, at: scheduledAt, clock: clock, in: db) { existing, logged, now in
            try ReminderPlanner.snoozeFrequencyDose(scheduledAt, of: medication, schedules: schedules, timeZone: timeZone,
                                                    existing: existing, isLogged: logged, now: now)
        }
    }

    /// Reads the dose's snooze and whether it is logged, asks `rule` for the new snooze,
    /// and stores it.
    private static func storeSnooze(
        of medication: Medication, at scheduledAt: Date, clock: RecordClock, in db: DatabaseConnection,
        rule: (_ existing: DoseSnooze?, _ logged: Bool, _ now: Date) throws -> DoseSnooze
    ) throws -> DoseSnooze {
        try ReminderPlanner.checkDoseInstant(scheduledAt)
        let key: [VaultValue] = [medication.id.vaultValue, scheduledAt.truncatedToMilliseconds.vaultValue]
        let existing = try db.fetchOne(selectSnooze, key, decodeSnooze)
        let logged = try db.fetchOne("SELECT 1 FROM dose_log WHERE medication_id = ? AND scheduled_at = ?", key) { _ in true }
        let now = clock.now()
        let stored = try rule(existing, logged == true, now)
        try db.execute(replaceSnooze, [
            stored.medicationID.vaultValue, medication.patientID.vaultValue, stored.scheduledAt.vaultValue,
            stored.snoozedUntil.vaultValue, stored.count.vaultValue, now.vaultValue,
        ])
        return stored
    }

    static func snoozes(patientID: UUID, in range: Range<Date>, _ db: DatabaseConnection) throws -> [DoseSnooze] {
        try db.fetchAll(selectSnoozesByPatient, SQLCipherDoseLogRepository.rangeArguments(patientID, range), decodeSnooze)
    }

    static func decodeSnooze(_ row: VaultRow) throws -> DoseSnooze {
        DoseSnooze(medicationID: try row[0], scheduledAt: try row[1], snoozedUntil: try row[2], count: try row[3])
    }
}
