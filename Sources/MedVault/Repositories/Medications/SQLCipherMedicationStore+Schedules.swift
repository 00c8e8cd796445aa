import Foundation
import MedVaultCore

extension SQLCipherMedicationStore {
    static let selectScheduleByID = "SELECT \(MedicationScheduleRow.columns) FROM medication_schedule WHERE id = ?"
    static let selectSchedulesByMedication = """
        SELECT \(MedicationScheduleRow.columns) FROM medication_schedule
        WHERE medication_id = ? ORDER BY created_at, id
        """
    static let selectSchedulesByPatient = """
        SELECT \(MedicationScheduleRow.qualifiedColumns)
        FROM medication m JOIN medication_schedule s ON s.medication_id = m.id
        WHERE m.patient_id = ? ORDER BY s.created_at, s.id
        """

    /// Stores a new schedule for a medication.
    ///
    /// Checks, in order: the medication exists (`notFound`), the schedule is valid
    /// (`validation`), its identifier is new (`duplicate`).
    public func createSchedule(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in
            guard try Self.medicationRowID(schedule.medicationID, db) != nil else { throw Self.noMedication }
            try MedicationValidation.validate(schedule)
            let exists = try db.fetchOne("SELECT 1 FROM medication_schedule WHERE id = ?",
                                         [schedule.id.databaseValue]) { _ in true } ?? false
            if exists {
                throw MedVaultError(.duplicate, reason: "a schedule with this identifier exists")
            }
            var stored = schedule
            let now = clock.now()
            stored.createdAt = now
            stored.updatedAt = now
            stored.version = 1
            try db.execute(MedicationScheduleRow.insert, MedicationScheduleRow.insertArguments(stored))
            return stored
        }
    }

    /// Saves changes to a stored schedule.
    ///
    /// Checks, in order: the schedule exists (`notFound`), it is valid (`validation`),
    /// its medication did not change (`validation`, field `medicationID`), the version
    /// is the stored one (`conflict`).
    public func updateSchedule(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        let clock = self.clock
        return try await pool.write { db in
            let current = try db.fetchOne(Self.selectScheduleByID, [schedule.id.databaseValue],
                                          MedicationScheduleRow.decode)
            guard let current else {
                throw MedVaultError(.notFound, reason: "no schedule has this identifier")
            }
            let stored = try MedicationUpdateRule.updated(schedule, replacing: current, now: clock.now())
            try db.execute(MedicationScheduleRow.update, MedicationScheduleRow.updateArguments(stored))
            return stored
        }
    }

    /// A medication's schedules, oldest first (by `createdAt`, then identifier).
    public func schedules(forMedication medicationID: UUID) async throws -> [MedicationSchedule] {
        try await pool.read { db in
            try db.fetchAll(Self.selectSchedulesByMedication, [medicationID.databaseValue],
                            MedicationScheduleRow.decode)
        }
    }

    /// The schedules of all of a patient's medications, oldest first.
    public func schedules(forPatient patientID: UUID) async throws -> [MedicationSchedule] {
        try await pool.read { db in
            try db.fetchAll(Self.selectSchedulesByPatient, [patientID.databaseValue], MedicationScheduleRow.decode)
        }
    }
}
