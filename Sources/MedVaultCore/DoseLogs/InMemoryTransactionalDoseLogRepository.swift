import Foundation

/// The in-memory ``TransactionalDoseLogRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalDoseLogRepository: TransactionalDoseLogRepository {
    let tables: InMemoryMedicationTables
    let scope: TransactionScope

    func create(_ log: DoseLog) throws -> DoseLogReceipt {
        try create([log])[0]
    }

    func create(_ logs: [DoseLog]) throws -> [DoseLogReceipt] {
        try tables.inUnit(scope) { try $0.createLogs(logs) }
    }

    func get(_ id: UUID) throws -> DoseLog {
        try tables.inUnit(scope) { try $0.getLog(id) }
    }

    func list(medicationID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try tables.inUnit(scope) { $0.listLogs(medicationID: medicationID, in: range) }
    }

    func list(patientID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try tables.inUnit(scope) { $0.listLogs(patientID: patientID, in: range) }
    }
}
