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

    func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) throws -> DoseLogReceipt {
        try tables.inUnit(scope) { try $0.correctLog(id, with: correction, expectedVersion: expectedVersion) }
    }

    func void(_ id: UUID, reason: String?, expectedVersion: Int64) throws -> DoseLogReceipt {
        try tables.inUnit(scope) { try $0.voidLog(id, reason: reason, expectedVersion: expectedVersion) }
    }

    func history(of id: UUID) throws -> [DoseLogRevision] {
        try tables.inUnit(scope) { $0.logHistory(id) }
    }

    func history(medicationID: UUID) throws -> [DoseLogRevision] {
        try tables.inUnit(scope) { $0.logHistory(medicationID: medicationID) }
    }

    func list(medicationID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try tables.inUnit(scope) { $0.listLogs(medicationID: medicationID, in: range) }
    }

    func list(patientID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try tables.inUnit(scope) { $0.listLogs(patientID: patientID, in: range) }
    }
}
