import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// The history page's sessions query joins each session's signature and flags its
/// addenda: it must still walk `clinical_session_history` in order (no sort) and probe
/// the signature and addenda by their indexes.
@Suite("Session history reader")
struct SessionHistoryReaderTests {
    @Test(arguments: [(SessionHistoryReader.sessions, 2), (SessionHistoryReader.sessionsAfter, 5)])
    func theSessionsQueryFollowsTheHistoryIndex(sql: String, parameterCount: Int) async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let arguments = [VaultValue](repeating: .integer(0), count: parameterCount)
        let plan = try await database.pool.read { db in
            try db.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(at: 3) }
        }
        #expect(plan.first?.hasPrefix("SEARCH TABLE clinical_session AS s USING INDEX clinical_session_history")
            == true, "\(plan)")
        #expect(plan.contains { $0.hasPrefix("SEARCH TABLE session_signature AS g USING INDEX") }, "\(plan)")
        #expect(plan.contains { $0.contains("session_addendum_by_session") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(plan)")
    }
}
