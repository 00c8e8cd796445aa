import Foundation

/// The in-memory ``TransactionalMedicationStore`` of an ``InMemoryVault`` unit of work,
/// with its schedules and dose logs.
struct InMemoryTransactionalMedicationStore: TransactionalMedicationStore {
    /// The vault's patients, whose executor `tables` share.
    let patients: InMemoryClinicalStore
    let tables: InMemoryMedicationTables
    let scope: TransactionScope

    var schedules: any TransactionalMedicationScheduleRepository {
        InMemoryTransactionalMedicationScheduleRepository(tables: tables, scope: scope)
    }

    var doseLogs: any TransactionalDoseLogRepository {
        InMemoryTransactionalDoseLogRepository(tables: tables, scope: scope)
    }

    var refills: any TransactionalMedicationRefillRepository {
        InMemoryTransactionalMedicationRefillRepository(tables: tables, scope: scope)
    }

    func create(_ medication: Medication) throws -> Medication {
        let patientKnown = try patients.inUnit(scope) { $0.hasPatient(medication.patientID) }
        return try tables.inUnit(scope) { try $0.createMedication(medication, patientKnown: patientKnown) }
    }

    func update(_ medication: Medication) throws -> Medication {
        try tables.inUnit(scope) { try $0.updateMedication(medication) }
    }

    func get(_ id: UUID) throws -> Medication {
        try tables.inUnit(scope) { try $0.getMedication(id) }
    }

    func list(patientID: UUID, filter: MedicationFilter) throws -> [Medication] {
        try tables.inUnit(scope) { $0.listMedications(patientID: patientID, filter: filter) }
    }

    func search(_ query: String, patientID: UUID?) throws -> [Medication] {
        try tables.inUnit(scope) { $0.searchMedications(query, patientID: patientID) }
    }

    func deactivate(_ id: UUID) throws -> Medication {
        try tables.inUnit(scope) { try $0.deactivateMedication(id) }
    }
}
