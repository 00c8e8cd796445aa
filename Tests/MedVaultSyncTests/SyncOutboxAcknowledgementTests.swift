import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// An acknowledgement removes exactly the envelopes it acknowledges from the outbox.
@Suite("Sync outbox: a late acknowledgement removes only what it acknowledges")
struct SyncOutboxAcknowledgementTests {
    @Test("A push answered after another pass emptied the outbox and sealed a new change leaves that change to be sent")
    func lateAcknowledgementKeepsNewerEnvelope() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let credentials = try #require(try await devices.engines[0].credentials())
            _ = try await vault.patients.create(ClinicalFixtures.patient("Primera", "Ruiz"))

            // Engine A seals the first patient and waits in its push.
            let held = HeldPushTransport(devices.server)
            let engineA = SyncEngine(vault: vault, transport: held)
            let passA = Task { try await engineA.sync() }
            while await held.pushCount == 0 { try await Task.sleep(for: .milliseconds(5)) }

            // Meanwhile another pass pushes the same envelopes and empties the outbox…
            _ = try await SyncEngine(vault: vault, transport: devices.server).sync()
            #expect(try await Self.outbox(vault).isEmpty)
            // …and a new change is sealed, but not pushed yet (its push would fail).
            let second = try await vault.patients.create(ClinicalFixtures.patient("Segunda", "Ruiz"))
            _ = try await vault.withSyncKeyChain { @Sendable (chain: SyncKeyChain) async throws -> Int in
                try await vault.database.write(duration: .long) { db in
                    try PendingChangeSealer.sealPending(keys: chain.current, localDevice: credentials.deviceID, db)
                }
            }
            let sealed = try await Self.outbox(vault)
            // The case this test was written for, a new envelope at an acknowledged
            // position, can no longer arise: positions are never given twice (migration
            // "sync outbox without an id index"). A late acknowledgement still removes by
            // position and id.
            #expect(sealed.count == 1 && !sealed.contains { $0.position == 1 })

            await held.release()
            _ = try await passA.value
            // Whatever A's acknowledgement removed, the second patient reaches device 1.
            _ = try await devices.syncAll()
            let onOther = try await devices.vaults[1].patients.get(second.id)
            #expect(onOther.id == second.id)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    static func outbox(_ vault: Vault) async throws -> [SyncStateStore.OutboxEnvelope] {
        try await vault.database.read { db in
            try SyncStateStore.outbox(limit: 1_000, maximumBodyBytes: .max, db)
        }
    }
}

/// A transport over an `InMemorySyncTransport` whose first push waits for ``release()``
/// before it reaches the server.
actor HeldPushTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private let gate = TestGate()
    private(set) var pushCount = 0

    init(_ inner: InMemorySyncTransport) { self.inner = inner }

    func release() async { await gate.release() }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        pushCount += 1
        if pushCount == 1 { await gate.wait() }
        return try await inner.push(request, as: credentials)
    }
}
