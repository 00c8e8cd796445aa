import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A first seal of more than a step is pushed while its later steps are sealed
/// (`SyncEngine.sealAndPush`): the envelopes still reach the server once each, in the
/// order one transaction would have sealed them, and a `lock()` or a failed push in the
/// middle loses nothing.
@Suite("Sync: sealing and pushing side by side")
struct SyncSealPushOverlapTests {
    /// 1,200 patients and 1,200 sessions.
    static let records = 2_400
    /// Steps of 20 records (120 steps): the first push, after the first step, finds the
    /// run still being sealed however the machine schedules the two (the steps write and
    /// commit 2,380 records while the push reads and sends 20).
    static let stepSize = 20

    static func makeDevices(in dir: TemporaryDirectory) async throws -> SyncDevices {
        let devices = try await SyncDevices.make(2, in: dir)
        let people = (0..<records / 2).map { ClinicalFixtures.patient("P\($0)", "Paralelo") }
        _ = try await devices.vaults[0].patients.create(people)
        _ = try await devices.vaults[0].sessions.create(people.map { patient in
            ClinicalSession(patientID: patient.id, date: Date(timeIntervalSince1970: 1_750_000_000), type: .video,
                            durationMinutes: 45, notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan")
        })
        return devices
    }

    @Test("The first push leaves while later steps are still to be sealed; every envelope arrives once, in the single transaction's order, and the other device converges")
    func pushesWhileSealing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.makeDevices(in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            // Envelope ids derive from the vault, the device and each change's sequence:
            // sealing everything at once (rolled back) tells the ids and their order.
            let expected = try await SyncSealStepTests.sealedInOneTransaction(vault, device: device)
                .map { String($0.prefix(36)) }
            #expect(expected.count == Self.records)

            let watching = SealWatchingTransport(devices.server, vault: vault)
            let engine = SyncEngine(vault: vault, transport: watching)
            await engine.setSealStepSize(Self.stepSize)
            let result = try await engine.sync()

            #expect(result.uploaded == Self.records)
            let pushes = await watching.pushes
            #expect(pushes.first?.runInProgress == true, "the first push waited for the whole seal")
            #expect(pushes.flatMap(\.ids) == expected)
            #expect(await devices.server.envelopeCount(vaultID: vault.vaultID) == Self.records)
            #expect(try await SyncSealStepTests.sealingThrough(vault) == 0)
            #expect(try await devices.engines[1].sync().downloaded == Self.records)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("lock() during the first push, with steps left to seal: the pass fails locked, nothing is half-written; reopened, the next pass sends the rest, each envelope once")
    func lockedWhileSealing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.makeDevices(in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let watching = SealWatchingTransport(devices.server, vault: vault, lockOnFirstPush: true)
            let engine = SyncEngine(vault: vault, transport: watching)
            await engine.setSealStepSize(Self.stepSize)
            await #expect(throws: MedVaultError.self) { try await engine.sync() }
            #expect(await watching.pushes.first?.runInProgress == true)

            let reopened = try await Vault.open(at: dir.file("device-0"), password: try VaultFixtures.password(),
                                                options: VaultFixtures.options)
            defer { Task { await reopened.lock() } }
            _ = try await SyncEngine(vault: reopened, transport: devices.server).sync()
            #expect(await devices.server.envelopeCount(vaultID: vault.vaultID) == Self.records)
            #expect(try await SyncSealStepTests.sealingThrough(reopened) == 0)
            #expect(try await devices.engines[1].sync().downloaded == Self.records)
            #expect(try await SyncFixtures.export(reopened) == SyncFixtures.export(devices.vaults[1]))
        }
    }

    @Test("A push that fails while steps are left: the steps still seal the whole run, then the pass throws the push's error; the next pass sends the rest, each envelope once")
    func pushFailsWhileSealing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.makeDevices(in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let engine = devices.engines[0]
            await engine.setSealStepSize(Self.stepSize)
            await devices.server.failPush(after: 1)
            await #expect { try await engine.sync() } throws: { error in
                (error as? MedVaultError)?.code == .offline
            }
            // One push stored (what was sealed when it was read: at least the first step);
            // the steps went on to the run's end, as when every step was sealed before any
            // push (a pull after a refused push must not seal the rest in one transaction).
            let stored = await devices.server.envelopeCount(vaultID: vault.vaultID)
            #expect(stored >= Self.stepSize && stored <= 200)
            #expect(try await SyncSealStepTests.sealingThrough(vault) == 0)
            #expect(try await SyncSealStepTests.outbox(vault).count == Self.records - stored)
            let second = try await engine.sync()
            #expect(second.uploaded == Self.records - stored)
            #expect(await devices.server.envelopeCount(vaultID: vault.vaultID) == Self.records)
            #expect(try await SyncSealStepTests.sealingThrough(vault) == 0)
            #expect(try await devices.engines[1].sync().downloaded == Self.records)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }
}

extension SyncSealPushOverlapTests {
    @Test("A pass cancelled at its first push stops its seal steps: the run is left unfinished, not sealed to its end behind the caller's back; the next pass finishes it, each envelope once")
    func cancelledWhileSealing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await Self.makeDevices(in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let watching = SealWatchingTransport(devices.server, vault: vault)
            let engine = SyncEngine(vault: vault, transport: watching)
            await engine.setSealStepSize(Self.stepSize)
            let pass = Task { try await engine.sync() }
            await watching.cancelOnFirstPush(pass)
            _ = await pass.result
            #expect(await watching.pushes.first?.runInProgress == true)
            // The pass has returned: no step runs any more, and most of the run is unsealed.
            let left = try await SyncSealStepTests.sealingThrough(vault)
            #expect(left != 0, "the steps went on after the pass was cancelled")
            let outbox = try await SyncSealStepTests.outbox(vault).count
            #expect(outbox < Self.records - Self.stepSize)

            _ = try await engine.sync()
            #expect(await devices.server.envelopeCount(vaultID: vault.vaultID) == Self.records)
            #expect(try await SyncSealStepTests.sealingThrough(vault) == 0)
            #expect(try await devices.engines[1].sync().downloaded == Self.records)
        }
    }
}

/// Forwards to an `InMemorySyncTransport`, noting for each push its envelope ids and
/// whether the vault's planned seal run was still in progress when it arrived; can lock
/// the vault when the first push arrives (after forwarding it).
actor SealWatchingTransport: ForwardingSyncTransport {
    struct Push: Sendable {
        let ids: [String]
        let runInProgress: Bool
    }

    let inner: InMemorySyncTransport
    let vault: Vault
    let lockOnFirstPush: Bool
    private(set) var pushes: [Push] = []

    init(_ inner: InMemorySyncTransport, vault: Vault, lockOnFirstPush: Bool = false) {
        self.inner = inner
        self.vault = vault
        self.lockOnFirstPush = lockOnFirstPush
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    /// Cancels `pass` when the first push arrives (before forwarding it); at once if one has.
    func cancelOnFirstPush(_ pass: Task<SyncResult, any Error>) {
        if pushes.isEmpty { toCancel = pass } else { pass.cancel() }
    }

    private var toCancel: Task<SyncResult, any Error>?

    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        let sealing = try await vault.database.read { db in try SyncStateStore.sealingThrough(db) }
        pushes.append(Push(ids: request.envelopes.map(\.id.uuidString), runInProgress: sealing != 0))
        if let pass = toCancel {
            toCancel = nil
            pass.cancel()
            throw CancellationError()
        }
        let response = try await inner.push(request, as: credentials)
        if lockOnFirstPush, pushes.count == 1 { await vault.lock() }
        return response
    }
}
