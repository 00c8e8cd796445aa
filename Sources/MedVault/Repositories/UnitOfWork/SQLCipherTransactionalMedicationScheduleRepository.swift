import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalMedicationScheduleRepository` of a unit of work.
struct SQLCipherTransactionalMedicationScheduleRepository: TransactionalMedicationScheduleRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherMedicationScheduleRepository

    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try unit.write { db in try SQL.create(schedule, clock: unit.clock, in: db) }
    }

    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try unit.write { db in try SQL.update(schedule, clock: unit.clock, in: db) }
    }

    func get(_ id: UUID) throws -> MedicationSchedule {
        try unit.read { db in try SQL.get(id, in: db) }
    }

    func list(medicationID: UUID) throws -> [MedicationSchedule] {
        try unit.read { db in try SQL.list(medicationID: medicationID, in: db) }
    }

    func list(patientID: UUID) throws -> [MedicationSchedule] {
        try unit.read { db in try SQL.list(patientID: patientID, in: db) }
    }
}
