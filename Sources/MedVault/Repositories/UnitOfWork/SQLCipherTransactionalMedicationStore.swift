import Foundation
@_spi(Testing) import MedVaultCore

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
            guard let match = SQL.matchExpression(query) else { return [] }
            return try SQL.search(match: match, patientID: patientID, in: db)
        }
    }

    func deactivate(_ id: UUID) throws -> Medication {
        try unit.write { db in try SQL.deactivate(id, clock: unit.clock, in: db) }
    }
}

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

/// The SQLCipher `TransactionalDoseLogRepository` of a unit of work.
struct SQLCipherTransactionalDoseLogRepository: TransactionalDoseLogRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherDoseLogRepository

    func create(_ log: DoseLog) throws -> DoseLogReceipt {
        try create([log])[0]
    }

    func create(_ logs: [DoseLog]) throws -> [DoseLogReceipt] {
        try unit.write { db in try DoseLogWriter(clock: unit.clock, faults: nil).write(logs, db) }
    }

    func get(_ id: UUID) throws -> DoseLog {
        try unit.read { db in try SQL.get(id, in: db) }
    }

    func list(medicationID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try unit.read { db in try SQL.list(medicationID: medicationID, in: range, db) }
    }

    func list(patientID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try unit.read { db in try SQL.list(patientID: patientID, in: range, db) }
    }
}
