import Foundation

/// The in-memory ``DoseLogRepository``, from ``InMemoryMedicationStore/doseLogs``.
public struct InMemoryDoseLogRepository: DoseLogRepository {
    let tables: InMemoryMedicationTables

    @discardableResult
    public func create(_ log: DoseLog) async throws -> DoseLogReceipt {
        try await tables.createLogs([log])[0]
    }

    @discardableResult
    public func create(_ logs: [DoseLog]) async throws -> [DoseLogReceipt] {
        try await tables.createLogs(logs)
    }

    public func get(_ id: UUID) async throws -> DoseLog {
        try await tables.getLog(id)
    }

    @discardableResult
    public func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) async throws -> DoseLogReceipt {
        try await tables.correctLog(id, with: correction, expectedVersion: expectedVersion)
    }

    @discardableResult
    public func void(_ id: UUID, reason: String?, expectedVersion: Int64) async throws -> DoseLogReceipt {
        try await tables.voidLog(id, reason: reason, expectedVersion: expectedVersion)
    }

    public func history(of id: UUID) async throws -> [DoseLogRevision] {
        await tables.logHistory(id)
    }

    public func history(medicationID: UUID) async throws -> [DoseLogRevision] {
        await tables.logHistory(medicationID: medicationID)
    }

    public func list(medicationID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        await tables.listLogs(medicationID: medicationID, in: range)
    }

    public func list(patientID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        await tables.listLogs(patientID: patientID, in: range)
    }
}
