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

    public func searchNotes(_ query: String, patientID: UUID?, after cursor: SessionHistoryCursor?, limit: Int)
        async throws -> SessionSearchPage
    {
        try await store.searchNotes(query, patientID: patientID, after: cursor, limit: limit)
    }

    public func agenda(from start: Date, to end: Date) async throws -> [ClinicalSession] {
        try await store.agenda(from: start, to: end)
    }

    public func count() async throws -> Int {
        await store.countSessions()
    }
}

// MARK: - Signing

extension InMemoryClinicalSessionRepository {
    @discardableResult
    public func sign(_ id: UUID, version: Int64) async throws -> SessionSignature {
        try await store.signSession(id, version: version)
    }

    @discardableResult
    public func addAddendum(to sessionID: UUID, reason: String, text: String) async throws -> SessionAddendum {
        try await store.addAddendum(to: sessionID, reason: reason, text: text)
    }

    public func entry(_ id: UUID) async throws -> SessionHistoryEntry {
        try await store.entry(id)
    }

    public func signatureRequiredForCompletion() async throws -> Bool {
        await store.isSignatureRequiredForCompletion()
    }

    public func setSignatureRequiredForCompletion(_ required: Bool) async throws {
        await store.setSignatureRequiredForCompletion(required)
    }
}
