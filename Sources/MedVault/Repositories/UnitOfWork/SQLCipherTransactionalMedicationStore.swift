import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalMedicationStore` of a unit of work: the SQL of
/// `SQLCipherMedicationStore`, on the unit's connection.
struct SQLCipherTransactionalMedicationStore: TransactionalMedicationStore {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherMedicationStore

    var schedules: any TransactionalMedicationScheduleRepository {
        SQLCipherTransactionalMedicationScheduleRepository(unit: unit)
    }

    var doseLogs: any TransactionalDoseLogRepository {
        SQLCipherTransactionalDoseLogRepository(unit: unit)
    }

    var refills: any TransactionalMedicationRefillRepository {
        SQLCipherTransactionalMedicationRefillRepository(unit: unit)
    }

    func create(_ medication: Medication) throws -> Medication {
        try unit.write { db in
            try SQL.insert(try MedicationRecordRule.created(medication, now: unit.clock.now()), in: db)
        }
    }

    func update(_ medication: Medication) throws -> Medication {
        try unit.write { db in try SQL.update(medication, clock: unit.clock, in: db) }
    }

    func get(_ id: UUID) throws -> Medication {
        try unit.read { db in try SQL.fetchMedication(id, db).medication }
    }

    func list(patientID: UUID, filter: MedicationFilter) throws -> [Medication] {
        try unit.read { db in try SQL.list(patientID: patientID, filter: filter, in: db) }
    }

    func search(_ query: String, patientID: UUID?) throws -> [Medication] {
        try unit.read { db in
            guard let match = FullTextQuery.matchExpression(query) else { return [] }
            return try SQL.search(match: match, patientID: patientID, in: db)
        }
    }

    func deactivate(_ id: UUID) throws -> Medication {
        try unit.write { db in try SQL.deactivate(id, clock: unit.clock, in: db) }
    }
}
