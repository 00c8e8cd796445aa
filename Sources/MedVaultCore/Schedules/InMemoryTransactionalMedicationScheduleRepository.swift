import Foundation

/// The in-memory ``TransactionalMedicationScheduleRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalMedicationScheduleRepository: TransactionalMedicationScheduleRepository {
    let tables: InMemoryMedicationTables
    let scope: TransactionScope

    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.createSchedule(schedule) }
    }

    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.updateSchedule(schedule) }
    }

    func get(_ id: UUID) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.getSchedule(id) }
    }

    func list(medicationID: UUID) throws -> [MedicationSchedule] {
        try tables.inUnit(scope) { $0.listSchedules(medicationID: medicationID) }
    }

    func list(patientID: UUID) throws -> [MedicationSchedule] {
        try tables.inUnit(scope) { $0.listSchedules(patientID: patientID) }
    }
}
