import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A pull applies one group of envelopes while it pulls and opens the next: with groups
/// of a few envelopes, every group boundary is crossed while another group applies.
@Suite("Sync pull: the next group is pulled while one applies")
struct SyncPullPipelineTests {
    /// Two devices (pages of 3), the first holding eight records (six envelopes each)
    /// named by `name`, already pushed to the server.
    static func devicesWithEightRecords(in dir: TemporaryDirectory, named name: (Int) -> String) async throws
        -> SyncDevices
    {
        let devices = try await SyncDevices.make(2, in: dir, batchSize: 3)
        for index in 0..<8 {
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: name(index))
        }
        _ = try await devices.engines[0].sync()
        return devices
    }

    @Test("A clone in many small groups converges, ends at the server's last sequence, and records no audit entry of its own")
    func manyGroupsConverge() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.devicesWithEightRecords(in: dir, named: { "P\($0)" })
            defer { Task { await devices.lockAll() } }
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

    @Test("A pull ahead that fails surfaces once the group before it is committed; the next sync resumes from there")
    func failingPullAhead() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.devicesWithEightRecords(in: dir, named: { "F\($0)" })
            defer { Task { await devices.lockAll() } }
            // Pulls 1 and 2 make the first group (two pages of 3); pull 3 is the pull ahead.
            let transport = ScriptedPullTransport(devices.server, failingPull: 3)
            let engine = SyncEngine(vault: devices.vaults[1], transport: transport, batchSize: 3, envelopesPerApply: 6)
            let error = await #expect(throws: MedVaultError.self) { try await engine.sync() }
            #expect(error?.code == .offline)
            let credentials = try #require(try await devices.engines[0].credentials())
            let total = Int64(await devices.server.envelopeCount(vaultID: credentials.vaultID))
            let cursor = try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough }
            #expect(cursor > 0 && cursor < total)
            let applied = try await devices.vaults[1].patients.count(filter: .all)
            #expect(applied >= 1 && applied < 8)
            let result = try await engine.sync()
            #expect(result.errors.isEmpty && result.conflicts == 0)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough } == total)
        }
    }

    @Test("A group pulled ahead of a group another engine applied first is dropped: nothing applied twice, the cursor ends at the end")
    func pullAheadDroppedWhenTheCursorMoved() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.devicesWithEightRecords(in: dir, named: { "D\($0)" })
            defer { Task { await devices.lockAll() } }
            // Engine B reads the cursor, then its first pull waits while engine A pulls
            // everything; B's first group then finds the cursor moved.
            let held = ScriptedPullTransport(devices.server, holdingFirstPull: true)
            let engineA = SyncEngine(vault: devices.vaults[1], transport: devices.server, batchSize: 3,
                                     envelopesPerApply: 6)
            let engineB = SyncEngine(vault: devices.vaults[1], transport: held, batchSize: 3, envelopesPerApply: 6)
            async let resultB = engineB.sync()
            while await held.pullCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
            let resultA = try await engineA.sync()
            await held.release()
            let b = try await resultB
            let credentials = try #require(try await devices.engines[0].credentials())
            let total = Int64(await devices.server.envelopeCount(vaultID: credentials.vaultID))
            #expect(resultA.downloaded == Int(total))
            #expect(b.downloaded == 0 && b.errors.isEmpty && b.conflicts == 0)
            #expect(await held.pullCount >= 2)
            #expect(try await engineB.conflicts().isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough } == total)
        }
    }

    @Test("Two engines pulling one vault in small groups at once apply each group once: no false conflict, no cursor moved back", arguments: 0..<3)
    func twoEnginesSmallGroups(round: Int) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.devicesWithEightRecords(in: dir, named: { "R\(round)-\($0)" })
            defer { Task { await devices.lockAll() } }
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

/// A transport over an `InMemorySyncTransport` whose pulls are counted, and can fail
/// (pull number `failingPull`, 1-based, throws `offline`) or wait (the first pull waits
/// for ``release()``).
actor ScriptedPullTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private let failingPull: Int?
    private let gate: TestGate?
    private(set) var pullCount = 0

    init(_ inner: InMemorySyncTransport, failingPull: Int? = nil, holdingFirstPull: Bool = false) {
        self.inner = inner
        self.failingPull = failingPull
        self.gate = holdingFirstPull ? TestGate() : nil
    }

    func release() async { await gate?.release() }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        pullCount += 1
        if pullCount == failingPull { throw MedVaultError(.offline, reason: "test: pull \(pullCount) fails") }
        if pullCount == 1, let gate { await gate.wait() }
        return try await inner.pull(after: after, limit: limit, as: credentials)
    }
}
