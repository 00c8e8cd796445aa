import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import Testing

/// A pull applies one group of envelopes while it pulls and opens the next: with groups
/// of a few envelopes, every group boundary is crossed while another group applies.
@Suite("Sync pull: the next group is pulled while one applies")
struct SyncPullPipelineTests {
    @Test("A clone in many small groups converges, ends at the server's last sequence, and records no audit entry of its own")
    func manyGroupsConverge() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 3)
            defer { Task { await devices.lockAll() } }
            for index in 0..<8 {
                try await SyncFixtures.addRecord(to: devices.vaults[0], name: "P\(index)")
            }
            _ = try await devices.engines[0].sync()
            let engine = SyncEngine(vault: devices.vaults[1], transport: devices.server, batchSize: 3,
                                    envelopesPerApply: 6)
            let auditBefore = try await devices.vaults[1].audit.entries(limit: 100_000)
            let result = try await engine.sync()
            #expect(result.errors.isEmpty && result.conflicts == 0)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let credentials = try #require(try await devices.engines[0].credentials())
            let total = Int64(await devices.server.envelopeCount(vaultID: credentials.vaultID))
            #expect(total >= 40)
            #expect(result.downloaded == Int(total))
            let cursor = try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough }
            #expect(cursor == total)
            // Opening a group pulled ahead uses the sync keys without the `sync` audit
            // entry (and the write it would queue behind the group applying).
            let auditAfter = try await devices.vaults[1].audit.entries(limit: 100_000)
            #expect(auditAfter.filter { $0.action == .sync }.count == auditBefore.filter { $0.action == .sync }.count)
        }
    }

    @Test("Two engines pulling one vault in small groups at once apply each group once: no false conflict, no cursor moved back", arguments: 0..<3)
    func twoEnginesSmallGroups(round: Int) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 3)
            defer { Task { await devices.lockAll() } }
            for index in 0..<8 {
                try await SyncFixtures.addRecord(to: devices.vaults[0], name: "R\(round)-\(index)")
            }
            _ = try await devices.engines[0].sync()
            let engines = (0..<2).map { _ in
                SyncEngine(vault: devices.vaults[1], transport: devices.server, batchSize: 3, envelopesPerApply: 6)
            }
            async let first = engines[0].sync()
            async let other = engines[1].sync()
            let results = try await [first, other]
            #expect(results.allSatisfy { $0.errors.isEmpty && $0.conflicts == 0 })
            #expect(try await engines[0].conflicts().isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let credentials = try #require(try await devices.engines[0].credentials())
            let total = Int64(await devices.server.envelopeCount(vaultID: credentials.vaultID))
            // Every envelope applied once, by one engine or the other.
            #expect(results.map(\.downloaded).reduce(0, +) == Int(total))
            let cursor = try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough }
            #expect(cursor == total)
        }
    }
}
