import Foundation

/// The in-memory ``ClinicalSessionRepository``, from ``InMemoryClinicalRecords``.
public struct InMemoryClinicalSessionRepository: ClinicalSessionRepository {
    let store: InMemoryClinicalStore

    @discardableResult
    public func create(_ session: ClinicalSession) async throws -> ClinicalSession {
        try await store.createSessions([session])[0]
    }

    @discardableResult
    public func create(_ sessions: [ClinicalSession]) async throws -> [ClinicalSession] {
        try await store.createSessions(sessions)
    }

    public func get(_ id: UUID) async throws -> ClinicalSession {
        try await store.getSession(id)
    }

    @discardableResult
    public func update(_ session: ClinicalSession) async throws -> ClinicalSession {
        try await store.updateSession(session)
    }

    @discardableResult
    public func cancel(_ id: UUID) async throws -> ClinicalSession {
        try await store.cancelSession(id)
    }

    public func delete(_ id: UUID) async throws {
        try await store.deleteSession(id)
    }

    public func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) async throws
        -> SessionHistoryPage
    {
        try await store.history(of: patientID, after: cursor, limit: limit)
    }

    public func agenda(from start: Date, to end: Date) async throws -> [ClinicalSession] {
        try await store.agenda(from: start, to: end)
    }

    public func count() async throws -> Int {
        await store.countSessions()
    }
}
