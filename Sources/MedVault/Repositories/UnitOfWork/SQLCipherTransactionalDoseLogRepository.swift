import Foundation
import MedVaultCore

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

    func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) throws -> DoseLogReceipt {
        try unit.write { db in
            try SQL.correct(id, with: correction, expectedVersion: expectedVersion, clock: unit.clock, in: db)
        }
    }

    func void(_ id: UUID, reason: String?, expectedVersion: Int64) throws -> DoseLogReceipt {
        try unit.write { db in
            try SQL.void(id, reason: reason, expectedVersion: expectedVersion, clock: unit.clock, in: db)
        }
    }

    func history(of id: UUID) throws -> [DoseLogRevision] {
        try unit.read { db in try SQL.history(of: id, in: db) }
    }

    func history(medicationID: UUID) throws -> [DoseLogRevision] {
        try unit.read { db in try SQL.history(medicationID: medicationID, in: db) }
    }

    func list(medicationID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try unit.read { db in try SQL.list(medicationID: medicationID, in: range, db) }
    }

    func list(patientID: UUID, in range: Range<Date>) throws -> [DoseLog] {
        try unit.read { db in try SQL.list(patientID: patientID, in: range, db) }
    }
}
