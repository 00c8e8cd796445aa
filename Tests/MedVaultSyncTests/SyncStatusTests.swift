import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// What an app shows of sync: the status stream, `syncNow()`, the device list.
@Suite("Sync: status, syncNow and the device list", .timeLimit(.minutes(2)))
struct SyncStatusTests {
    /// Reads `updates` until a status satisfies `match`, and returns it.
    static func next(_ updates: inout AsyncStream<SyncStatus>.Iterator,
                     _ match: (SyncStatus) -> Bool) async -> SyncStatus? {
        while let status = await updates.next() {
            if match(status) { return status }
        }
        return nil
    }

    @Test("A manual pass shows syncing then idle; one that cannot reach the server shows offline")
    func manualPasses() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let engine = devices.engines[0]
            var updates = await engine.statusUpdates().makeAsyncIterator()
            #expect(await updates.next() == .idle(lastSynced: nil))
            _ = try await engine.sync()
            #expect(await updates.next() == .syncing(downloaded: 0))
            guard case .idle(let last?) = await updates.next() else {
                Issue.record("no idle status after the pass")
                return
            }
            #expect(abs(last.timeIntervalSinceNow) < 3_600)
            await devices.server.failNextCalls(1)
            #expect(await SyncFixtures.errorCode { _ = try await engine.sync() } == .offline)
            #expect(await updates.next() == .syncing(downloaded: 0))
            #expect(await updates.next() == .offline(retryAt: nil))
            await devices.server.failNextCalls(1, with: .unauthorized)
            #expect(await SyncFixtures.errorCode { _ = try await engine.sync() } == .unauthorized)
            _ = await updates.next()
            guard case .failed(let error) = await updates.next() else {
                Issue.record("no failed status")
                return
            }
            #expect(error.code == .unauthorized)
        }
    }

    @Test("Automatic sync offline backs off for an hour; syncNow() syncs at once, the status goes offline → syncing → idle, and the other device's change arrives")
    func syncNowDuringBackoff() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let engine = devices.engines[1]
            let schedule = SyncSchedule(afterCommit: .seconds(3_600), interval: .seconds(3_600),
                                        initialBackoff: .seconds(3_600), maximumBackoff: .seconds(3_600))
            var updates = await engine.statusUpdates().makeAsyncIterator()
            await devices.server.failNextCalls(1)
            let (log, task) = PassLog.start(engine, schedule)
            defer { task.cancel() }
            // The pass reports offline, then the loop its retry time.
            guard case .offline(let retryAt?) = await Self.next(&updates, { if case .offline(_?) = $0 { true } else { false } }) else {
                Issue.record("no offline status")
                return
            }
            #expect(retryAt.timeIntervalSinceNow > 3_000, "it backs off for the hour")
            // Another device's change, then "the network is back".
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            _ = try await devices.engines[0].sync()
            engine.syncNow()
            engine.syncNow()
            #expect(await Self.next(&updates, { if case .syncing = $0 { true } else { false } }) != nil)
            let idle = await Self.next(&updates, { if case .idle = $0 { true } else { false } })
            #expect(idle != nil)
            #expect(try await devices.vaults[1].patients.count() == 1)
            // The pass is logged by the task iterating it, just after the status.
            #expect(try await eventually { log.all.count >= 2 })
            let passes = log.all
            #expect(passes.count == 2, "one failed pass, then one for both syncNow() calls: \(passes)")
        }
    }

    @Test("When automatic sync ends during its backoff, the retry it promised is withdrawn from the status")
    func endedLoopWithdrawsItsRetry() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let engine = devices.engines[0]
            let schedule = SyncSchedule(afterCommit: .seconds(3_600), interval: .seconds(3_600),
                                        initialBackoff: .seconds(3_600), maximumBackoff: .seconds(3_600))
            var updates = await engine.statusUpdates().makeAsyncIterator()
            await devices.server.failNextCalls(1)
            let (_, task) = PassLog.start(engine, schedule)
            #expect(await Self.next(&updates, { if case .offline(_?) = $0 { true } else { false } }) != nil)
            task.cancel()
            #expect(await Self.next(&updates, { $0 == .offline(retryAt: nil) }) != nil)
        }
    }

    @Test("devices() lists every device with its sealed name, this one marked, a revoked one flagged; the server never sees a name")
    func deviceList() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            try await devices.engines[0].setDeviceName("Consulta — iPad")
            try await devices.engines[1].setDeviceName("  Móvil de Ana  ")
            try await devices.engines[0].revoke(device: try #require(try await devices.engines[2].credentials()).deviceID)
            let listed = try await devices.engines[1].devices()
            let ids = try await devices.engines.asyncMap { try #require(try await $0.credentials()).deviceID }
            #expect(listed.map(\.id) == ids)
            #expect(listed.map(\.name) == ["Consulta — iPad", "Móvil de Ana", nil])
            #expect(listed.map(\.isCurrent) == [false, true, false])
            #expect(listed.map(\.isRevoked) == [false, false, true])
            #expect(listed[1].lastSeenAt != nil)
            // The list adopted the epoch the revocation started: the remaining devices'
            // certificates of it verify, the revoked one has none.
            #expect(listed.map(\.isCertified) == [true, true, false])
            // The server holds sealed names only.
            let raw = try await devices.server.devices(as: try #require(try await devices.engines[1].credentials()))
            for info in raw.devices {
                if let sealed = info.sealedName {
                    #expect(sealed.firstRange(of: Data("Consulta".utf8)) == nil && sealed.firstRange(of: Data("Ana".utf8)) == nil)
                    #expect(sealed.count % 128 == 32, "the epoch, then padded to 128 bytes, with nonce and tag")
                }
            }
            // A sealed name moved to another device does not open there.
            let moved = SyncDeviceList(devices: raw.devices.map { info in
                SyncDeviceInfo(deviceID: info.deviceID, registeredAt: info.registeredAt, lastSeenAt: info.lastSeenAt,
                               revoked: info.revoked, sealedName: raw.devices[0].sealedName)
            })
            let vaultID = devices.vaults[1].vaultID
            let keysOpen = try await devices.vaults[1].withSyncKeyChain { chain in
                moved.devices.map { SyncEngine.openName($0.sealedName!, device: $0.deviceID, vaultID: vaultID, chain) }
            }
            #expect(keysOpen == ["Consulta — iPad", nil, nil])
        }
    }

    @Test("A bad device name is a validation error on field name, before any request", arguments: [
        "", "   ", String(repeating: "x", count: 101), "tab\tname", "line\nbreak", "Ana\u{202E}daPi",
        "zero\u{200B}width", String(repeating: "e\u{301}\u{301}\u{301}", count: 90),
    ])
    func badNames(name: String) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            await devices.server.failNextCalls(1)
            do {
                try await devices.engines[0].setDeviceName(name)
                Issue.record("accepted")
            } catch let error as MedVaultError {
                #expect(error.code == .validation && error.field == "name")
            }
            // The injected failure was not spent: no request was made.
            #expect(await SyncFixtures.errorCode { _ = try await devices.engines[0].devices() } == .offline)
        }
    }
}

/// A transport implementing only what `SyncTransport` requires, forwarding to the
/// in-memory server: the protocol's default device list and names are what it gets.
struct RequiredOnlyTransport: SyncTransport {
    let inner: InMemorySyncTransport

    func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge { try await inner.challenge(request) }
    func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken { try await inner.register(request) }
    func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        try await inner.join(vaultID: vaultID, request)
    }
    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        try await inner.push(request, as: credentials)
    }
    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }
    func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob { try await inner.keyring(as: credentials) }
    func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try await inner.putKeyring(update, as: credentials)
    }
    func revoke(device: UUID, as credentials: SyncCredentials) async throws {
        try await inner.revoke(device: device, as: credentials)
    }
}

@Suite("Sync: a transport without a device list")
struct RequiredOnlyTransportTests {
    @Test("devices() and setDeviceName(_:) through a transport that keeps no device list are invalidArgument")
    func defaults() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let engine = SyncEngine(vault: devices.vaults[0], transport: RequiredOnlyTransport(inner: devices.server))
            #expect(await SyncFixtures.errorCode { _ = try await engine.devices() } == .invalidArgument)
            #expect(await SyncFixtures.errorCode { try await engine.setDeviceName("Consulta") } == .invalidArgument)
        }
    }
}

/// `syncNow()`'s signal between automatic-sync loops.
@Suite("Sync: the syncNow signal")
struct NowSignalTests {
    final class Count: @unchecked Sendable {
        // Safety of @unchecked Sendable: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    @Test("A loop that ends does not detach the loop that replaced it; a request is taken once; a Retry-After holds it")
    func tokens() {
        let signal = NowSignal()
        let first = Count()
        let second = Count()
        let old = signal.attach { first.add() }
        _ = signal.attach { second.add() }
        signal.detach(old)
        signal.request()
        #expect(first.current == 0 && second.current == 1, "the newer loop is still woken")
        #expect(signal.take())
        #expect(!signal.take(), "taken once")
        signal.hold(until: Date().addingTimeInterval(3_600))
        signal.request()
        #expect(!signal.take(), "a rate limit's wait is not cut short")
        signal.hold(until: .distantPast)
        signal.request()
        #expect(signal.take())
    }
}

extension Array where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
