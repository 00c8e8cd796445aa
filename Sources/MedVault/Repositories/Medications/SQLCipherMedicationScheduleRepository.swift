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
}
