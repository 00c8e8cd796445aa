import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// What goes wrong between devices and the server: lost answers, an unreachable server,
/// changed bytes, a revoked device, an unregistered engine.
@Suite("Sync engine: failures and retries")
struct SyncFailureTests {
    @Test("A push whose answer was lost is retried with the same envelope ids and bytes: the server stores nothing twice")
    func droppedPushResponse() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            await devices.server.dropNextPushResponse()
            await #expect(throws: MedVaultError.self) { try await devices.engines[0].sync() }
            let vaultID = devices.vaults[0].vaultID
            #expect(await devices.server.envelopeCount(vaultID: vaultID) == 6)   // stored, answer lost
            let retry = try await devices.engines[0].sync()
            #expect(retry.uploaded == 6)                                          // resent from the outbox
            #expect(await devices.server.envelopeCount(vaultID: vaultID) == 6)   // same ids: no duplicates
            try await devices.syncAll()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A push refused after two were accepted (offline, or a conflict that sends the engine to its epoch check and re-seal): both acknowledgements are committed before sync throws; nothing is stored twice",
          arguments: [MedVaultError.Code.offline, .conflict])
    func acknowledgedBeforeLaterFailure(code: MedVaultError.Code) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 1)
            defer { Task { await devices.lockAll() } }
            for name in ["Ana", "Luis", "Eva", "Sara"] {
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient(name, "Ruiz"))
            }
            let vaultID = devices.vaults[0].vaultID
            await devices.server.failPush(after: 2, with: code)
            await #expect(throws: MedVaultError.self) { try await devices.engines[0].sync() }
            let stored = await devices.server.envelopeCount(vaultID: vaultID)
            let waiting = try await devices.vaults[0].database.read { db in
                try SyncStateStore.outbox(limit: 1_000, db).count
            }
            #expect(stored == 2)
            #expect(waiting == 2)   // four envelopes: two acknowledged, two still to push
            let retry = try await devices.engines[0].sync()
            #expect(retry.uploaded == waiting)
            #expect(await devices.server.envelopeCount(vaultID: vaultID) == stored + waiting)
            try await devices.syncAll()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("Offline errors (every call in turn) leave state resumable: the next sync completes and both devices converge")
    func offlineResumes() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 2)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Ana")
            try await SyncFixtures.addRecord(to: devices.vaults[1], name: "Luis")
            try await devices.syncAll()
            // Fail the first 1, 2, … 6 calls in turn (challenge-free: pushes and pulls):
            // each failure is typed and the following sync resumes from committed state.
            for calls in 1...6 {
                try await SyncFixtures.addRecord(to: devices.vaults[calls % 2], name: "P\(calls)")
                await devices.server.failNextCalls(calls)
                var failures = 0
                for engine in devices.engines {
                    do { _ = try await engine.sync() } catch let error as MedVaultError {
                        #expect(error.code == .offline)
                        failures += 1
                    }
                }
                #expect(failures >= 1)
            }
            await devices.server.failNextCalls(0)
            try await devices.syncAll()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[0].patients.list(filter: .all, after: nil, limit: 100).patients.count == 8)
            #expect(await devices.server.envelopeCount(vaultID: devices.vaults[0].vaultID) == 48)
        }
    }

    @Test("One bit flipped in one envelope: that envelope is refused with `corrupted` in SyncResult.errors, the rest applied")
    func flippedBit() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            for name in ["Ana", "Luis", "Eva"] {
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient(name, "Ruiz"))
            }
            _ = try await devices.engines[0].sync()
            try await devices.server.tamper(vaultID: devices.vaults[0].vaultID, sequence: 2) { ciphertext in
                var bytes = ciphertext
                bytes[bytes.count / 2] ^= 0x10
                return bytes
            }
            let result = try await devices.engines[1].sync()
            #expect(result.errors.count == 1)
            #expect(result.errors.first?.code == .corrupted)
            #expect(result.errors.first?.sequence == 2)
            #expect(result.downloaded == 2)
            #expect(try await devices.vaults[1].patients.list(filter: .all, after: nil, limit: 10).patients.count == 2)
            // Refused once: the cursor moved past it, the next sync does not stumble again.
            #expect(try await devices.engines[1].sync().errors.isEmpty)
        }
    }

    @Test("A revoked device's pull is `unauthorized`; the other devices go on")
    func revokedDevice() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let revoked = try #require(try await devices.engines[2].credentials())
            try await devices.engines[0].revoke(device: revoked.deviceID)
            await #expect(throws: MedVaultError.self) { try await devices.engines[2].sync() }
            do {
                _ = try await devices.server.pull(after: 0, limit: 10, as: revoked)
                Issue.record("a revoked device pulled")
            } catch let error as MedVaultError {
                #expect(error.code == .unauthorized)
            }
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            _ = try await devices.engines[0].sync()
            _ = try await devices.engines[1].sync()
            let exports = [try await SyncFixtures.export(devices.vaults[0]), try await SyncFixtures.export(devices.vaults[1])]
            #expect(exports[0] == exports[1])
        }
    }

    @Test("sync() before register() or join() is `invalidArgument`; registering again joins as a new device")
    func unregistered() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let vault = try await Vault.create(at: dir.file("v"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            defer { Task { await vault.lock() } }
            let engine = SyncEngine(vault: vault, transport: server)
            do {
                _ = try await engine.sync()
                Issue.record("sync ran unregistered")
            } catch let error as MedVaultError {
                #expect(error.code == .invalidArgument)
            }
            try await engine.register()
            let first = try #require(try await engine.credentials())
            // Registering again (as after an answer lost in transit): the server has the
            // vault and this device id, so the device joins under a new id. The first
            // registration's token is not taken over.
            try await engine.register()
            let second = try #require(try await engine.credentials())
            let device = try await vault.changeLogDeviceID()
            #expect(second.deviceID != first.deviceID && second.deviceID == device)
            #expect(try await server.keyring(as: first).generation >= 1)
            _ = try await SyncFixtures.addRecord(to: vault)
            #expect(try await engine.sync().uploaded > 0)
        }
    }

    @Test("A device joined with the recovery key converges like one joined with the password")
    func joinWithRecoveryKey() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            let blob = try await devices.server.keyring(as: try #require(try await devices.engines[0].credentials()))
            let secret = try #require(try await devices.engines[0].syncSecret())
            let third = try await Vault.join(at: dir.file("recovered"), keyring: blob.keyring, syncSecret: secret,
                                             recoveryKey: devices.recoveryKey, options: VaultFixtures.options)
            defer { Task { await third.lock() } }
            let engine = SyncEngine(vault: third, transport: devices.server)
            try await engine.join()
            try await devices.syncAll()
            _ = try await engine.sync()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await SyncFixtures.export(third) == exports[0])
            // A wrong password cannot make a device of the vault.
            do {
                _ = try await Vault.join(at: dir.file("wrong"), keyring: blob.keyring, syncSecret: secret,
                                         password: try Password("wrong"), options: VaultFixtures.options)
                Issue.record("joined with a wrong password")
            } catch let error as MedVaultError {
                #expect(error.code == .wrongPassword)
            }
        }
    }

    @Test("Two engines syncing one vault at once (an app and its extension) apply each page once: no false conflict, no cursor moved back")
    func twoEnginesOneVault() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 3)
            defer { Task { await devices.lockAll() } }
            for name in ["Ana", "Luis", "Eva", "Pau"] {
                try await SyncFixtures.addRecord(to: devices.vaults[0], name: name)
            }
            _ = try await devices.engines[0].sync()
            let second = SyncEngine(vault: devices.vaults[1], transport: devices.server, batchSize: 3)
            async let first = devices.engines[1].sync()
            async let other = second.sync()
            let results = try await [first, other]
            #expect(results.allSatisfy { $0.errors.isEmpty && $0.conflicts == 0 })
            #expect(try await devices.engines[1].conflicts().isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let cursor = try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough }
            #expect(cursor == 24)
        }
    }
}
