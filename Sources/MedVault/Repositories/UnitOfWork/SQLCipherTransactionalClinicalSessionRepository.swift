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
        return try unit.writeChecked { db in
            try ClinicalSQL.insertCheckedBatch(sessions, in: db, table: "clinical_session") { try SQL.stamped($0, now: now) }
                check: { db, session in try SQL.checkParent(session, in: db) }
                insert: { db, session in try SQL.insertRow(session, in: db) }
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

    func sign(_ id: UUID, version: Int64) throws -> SessionSignature {
        try unit.write { db in try SQL.sign(id, version: version, clock: unit.clock, in: db) }
    }

    func addAddendum(to sessionID: UUID, reason: String, text: String) throws -> SessionAddendum {
        try unit.write { db in try SQL.addAddendum(to: sessionID, reason: reason, text: text, clock: unit.clock, in: db) }
    }

    func entry(_ id: UUID) throws -> SessionHistoryEntry {
        try unit.read { db in try SQL.entry(SQL.fetch(id, db), in: db) }
    }
}
