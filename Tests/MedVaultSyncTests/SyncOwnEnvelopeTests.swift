import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A transport that counts the envelopes its pulls return.
actor CountingPullTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private(set) var pulled = 0

    init(_ inner: InMemorySyncTransport) {
        self.inner = inner
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        let page = try await inner.pull(after: after, limit: limit, as: credentials)
        pulled += page.envelopes.count
        return page
    }
}

/// A transport whose `failing`th push fails `offline`, before it reaches the server.
actor FailingPushTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    let failing: Int
    private var pushes = 0

    init(_ inner: InMemorySyncTransport, failing: Int) {
        self.inner = inner
        self.failing = failing
    }

    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        pushes += 1
        if pushes == failing { throw MedVaultError(.offline, reason: "the test's network dropped the push") }
        return try await inner.push(request, as: credentials)
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }
}

/// A device does not download again what it has just pushed (`SyncEngine.passOwnEnvelopes`).
@Suite("Sync: a device's own pushes are not pulled back")
struct SyncOwnEnvelopeTests {
    @Test("A first push of 30 envelopes pulls none of them back; once another device's envelopes lie between, the pull fetches them and the device's own after them")
    func ownPushIsNotPulledBack() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let counting = CountingPullTransport(server)
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 10, server: server)
            defer { Task { await devices.lockAll() } }
            let first = SyncEngine(vault: devices.vaults[0], transport: counting, batchSize: 10)
            for name in ["Ana", "Luis", "Eva", "Pau", "Noa"] {
                try await SyncFixtures.addRecord(to: devices.vaults[0], name: name)
            }
            let pushed = try await first.sync()
            #expect(pushed.uploaded == 30)
            #expect(await counting.pulled == 0)
            #expect(try await devices.vaults[0].database.read { db in try SyncStateStore.state(db).pulledThrough } == 30)
            #expect(try await devices.engines[1].sync().downloaded == 30)

            // The second device pushes (31…36) before the first (37…42): the first's cursor
            // (30) is not right before its own push, so it pulls 31…42.
            try await SyncFixtures.addRecord(to: devices.vaults[1], name: "Sol")
            #expect(try await devices.engines[1].sync().uploaded == 6)
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Mar")
            let both = try await first.sync()
            #expect(both.uploaded == 6 && both.downloaded == 6)
            #expect(await counting.pulled == 12)
            _ = try await devices.engines[1].sync()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("The cursor moves only over numbers that continue it: a gap, old numbers, none, or numbers at Int64's end leave it")
    func cursorMovesOnlyOverContinuation() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let database = devices.vaults[0].database
            func cursor(after sequences: [Int64], from start: Int64) async throws -> Int64 {
                try await database.write { db in
                    try SyncStateStore.setPulledThrough(start, db)
                    try SyncEngine.passOwnEnvelopes(sequences, epoch: 0, db)
                    return try SyncStateStore.state(db).pulledThrough
                }
            }
            #expect(try await cursor(after: [1, 2, 3], from: 0) == 3)
            #expect(try await cursor(after: [12, 13], from: 10) == 10)
            #expect(try await cursor(after: [11, 13], from: 10) == 10)
            #expect(try await cursor(after: [4, 5], from: 10) == 10)
            #expect(try await cursor(after: [], from: 10) == 10)
            #expect(try await cursor(after: [.max], from: .max - 1) == .max)
            // The epoch floor of pulls rises with a pass, and only then.
            let floors = try await database.write { db -> [UInt32] in
                try SyncStateStore.setPulledThrough(0, db)
                let initial = try SyncEpochRecord.pulledEpoch(db)
                try SyncEngine.passOwnEnvelopes([5], epoch: 7, db)
                let before = try SyncEpochRecord.pulledEpoch(db)
                try SyncEngine.passOwnEnvelopes([1], epoch: 7, db)
                return [initial, before, try SyncEpochRecord.pulledEpoch(db)]
            }
            #expect(floors[0] < 7 && floors[1] == floors[0] && floors[2] == 7)
            #expect(try await cursor(after: [.max, .min], from: .max - 1) == .max - 1)
        }
    }

    @Test("A push that fails while the next batch is read ahead: the acknowledged batch left the outbox, the next sync sends the rest once, and the devices converge")
    func pipelinedPushFailure() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 10, server: server)
            defer { Task { await devices.lockAll() } }
            let failing = SyncEngine(vault: devices.vaults[0], transport: FailingPushTransport(server, failing: 2),
                                     batchSize: 10)
            for name in ["Ana", "Luis", "Eva", "Pau", "Noa"] {
                try await SyncFixtures.addRecord(to: devices.vaults[0], name: name)
            }
            await #expect { _ = try await failing.sync() } throws: { ($0 as? MedVaultError)?.code == .offline }
            let vaultID = devices.vaults[0].vaultID
            #expect(await server.envelopeCount(vaultID: vaultID) == 10)
            #expect(try await failing.sync().uploaded == 20)
            #expect(await server.envelopeCount(vaultID: vaultID) == 30)
            #expect(try await devices.engines[1].sync().downloaded == 30)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }
}
