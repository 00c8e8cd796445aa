import Foundation

/// The in-memory ``TransactionalClinicalSessionRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalClinicalSessionRepository: TransactionalClinicalSessionRepository {
    let store: InMemoryClinicalStore
    let scope: TransactionScope

    func create(_ session: ClinicalSession) throws -> ClinicalSession {
        try create([session])[0]
    }

    func create(_ sessions: [ClinicalSession]) throws -> [ClinicalSession] {
        try store.inUnit(scope) { try $0.createSessions(sessions) }
    }

    func get(_ id: UUID) throws -> ClinicalSession {
        try store.inUnit(scope) { try $0.getSession(id) }
    }

    func update(_ session: ClinicalSession) throws -> ClinicalSession {
        try store.inUnit(scope) { try $0.updateSession(session) }
    }

    func cancel(_ id: UUID) throws -> ClinicalSession {
        try store.inUnit(scope) { try $0.cancelSession(id) }
    }

    func delete(_ id: UUID) throws {
        try store.inUnit(scope) { try $0.deleteSession(id) }
    }

    func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) throws -> SessionHistoryPage {
        try store.inUnit(scope) { try $0.history(of: patientID, after: cursor, limit: limit) }
    }

    func agenda(from start: Date, to end: Date) throws -> [ClinicalSession] {
        try store.inUnit(scope) { try $0.agenda(from: start, to: end) }
    }

    func count() throws -> Int {
        try store.inUnit(scope) { $0.countSessions() }
    }

    func sign(_ id: UUID, version: Int64) throws -> SessionSignature {
        try store.inUnit(scope) { try $0.signSession(id, version: version) }
    }

    func addAddendum(to sessionID: UUID, reason: String, text: String) throws -> SessionAddendum {
        try store.inUnit(scope) { try $0.addAddendum(to: sessionID, reason: reason, text: text) }
    }

    func entry(_ id: UUID) throws -> SessionHistoryEntry {
        try store.inUnit(scope) { try $0.entry(id) }
    }
}
