import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The outbox written and acknowledged with multi-row statements: every count of rows
/// lands whole and in order, a removal takes exactly the acknowledged (position, id)
/// pairs, and each of its terms is a rowid lookup, never a scan of the outbox.
@Suite("Sync outbox: multi-row statements")
struct MultiRowStatementTests {
    static func row(_ index: Int) -> SyncStateStore.SyncEnvelopeRow {
        var id = UUID().uuid
        id.0 = UInt8(index & 0xFF)
        return .init(id: UUID(uuid: id), recordKey: Data(repeating: UInt8(index & 0xFF), count: 32),
                     ciphertext: Data("envelope \(index)".utf8) + Data(repeating: 0, count: 32), epoch: UInt32(index % 3))
    }

    @Test("0, 1, 63, 64, 65 and 130 rows: the outbox holds each in order; removal takes the acknowledged pairs only, not a row at an acknowledged position under another id")
    func everyCountInOrder() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            for count in [0, 1, 63, 64, 65, 130] {
                let rows = (0..<count).map(Self.row)
                let stored = try await devices.vaults[0].database.write { db in
                    try SyncStateStore.enqueue(rows, db)
                    return try SyncStateStore.outbox(limit: 1_000, db)
                }
                #expect(stored.map(\.id) == rows.map(\.id))
                #expect(stored.map(\.ciphertext) == rows.map(\.ciphertext))
                #expect(stored.map(\.recordKey) == rows.map(\.recordKey))
                #expect(stored.map(\.epoch) == rows.map(\.epoch))
                // Acknowledge every other row, one of them under a stale id (a re-sealed row).
                var acknowledged = try stored.enumerated().filter { $0.offset % 2 == 0 }.map { item in
                    SyncStateStore.OutboxEnvelope(position: item.element.position, envelope: try SyncEnvelope(
                        id: item.element.id, recordKey: item.element.recordKey, ciphertext: item.element.ciphertext,
                        epoch: item.element.epoch))
                }
                var kept = stored.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.id)
                if let first = acknowledged.first {
                    acknowledged[0] = SyncStateStore.OutboxEnvelope(position: first.position, envelope: try SyncEnvelope(
                        id: UUID(), recordKey: first.envelope.recordKey, ciphertext: first.envelope.ciphertext))
                    kept.insert(first.envelope.id, at: 0)
                }
                let removed = acknowledged
                let left = try await devices.vaults[0].database.write { db in
                    try SyncStateStore.removeFromOutbox(removed, db)
                    let left = try SyncStateStore.outbox(limit: 1_000, db)
                    try SyncStateStore.removeFromOutbox(left.map {
                        SyncStateStore.OutboxEnvelope(position: $0.position, envelope: try SyncEnvelope(
                            id: $0.id, recordKey: $0.recordKey, ciphertext: $0.ciphertext, epoch: $0.epoch))
                    }, db)
                    return left
                }
                #expect(left.map(\.id) == kept, "\(count) rows")
            }
        }
    }

    @Test("The 64-term removal is 64 rowid lookups: no step of its plan scans the outbox")
    func removalPlanIsLookups() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let sql = try #require(SyncStateStore.removeStatement.statements.last)
            let arguments = (0..<64).flatMap { index -> [VaultValue] in [.integer(Int64(index)), UUID().vaultValue] }
            // In a write: a read connection refuses to prepare a DELETE, even to explain it.
            let plan = try await devices.vaults[0].database.write { db in
                try db.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(at: 3) }
            }
            // SQLite 3.15 lists one SEARCH per term; newer ones add MULTI-INDEX OR rows.
            let searches = plan.filter { $0.hasPrefix("SEARCH") }
            #expect(searches.count == 64, "\(plan)")
            #expect(searches.allSatisfy { $0.contains("INTEGER PRIMARY KEY") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        }
    }
}
