import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalClinicalSessionRepository` of a unit of work: the SQL
/// of `SQLCipherClinicalSessionRepository`, on the unit's connection.
struct SQLCipherTransactionalClinicalSessionRepository: TransactionalClinicalSessionRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherClinicalSessionRepository

    func create(_ session: ClinicalSession) throws -> ClinicalSession {
        try create([session])[0]
    }

    func create(_ sessions: [ClinicalSession]) throws -> [ClinicalSession] {
        let now = unit.clock.now()
        return try unit.write { db in
            try ClinicalSQL.insertBatch(sessions, in: db) { try SQL.stamped($0, now: now) }
                insert: { db, session in try SQL.insert(session, in: db) }
        }
    }

    func get(_ id: UUID) throws -> ClinicalSession {
        try unit.read { db in try SQL.fetch(id, db) }
    }

    func update(_ session: ClinicalSession) throws -> ClinicalSession {
        try unit.write { db in
            try SQL.update(session, validation: Result { try session.validated() }, clock: unit.clock, in: db)
        }
    }

    func cancel(_ id: UUID) throws -> ClinicalSession {
        try unit.write { db in try SQL.cancel(id, clock: unit.clock, in: db) }
    }

    func delete(_ id: UUID) throws {
        try unit.write { db in try SQL.delete(id, in: db) }
    }

    func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) throws -> SessionHistoryPage {
        try unit.read { db in try SQL.history(of: patientID, after: cursor, limit: limit, in: db) }
    }

    func agenda(from start: Date, to end: Date) throws -> [ClinicalSession] {
        try unit.read { db in try SQL.agenda(from: start, to: end, in: db) }
    }

    func count() throws -> Int {
        try unit.read { db in try SQL.count(in: db) }
    }
}
