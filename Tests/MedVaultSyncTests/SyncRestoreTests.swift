import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A device whose vault is restored from a backup syncs again as a new device, gets back
/// what it pushed after the backup, and its new changes reach the others.
@Suite("Sync after a restore: the restored vault joins again")
struct SyncRestoreTests {
    @Test("Restored over itself, a syncing device must join again; then it recovers its later changes and sends new ones")
    func restoredDeviceJoinsAgain() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            let password = try VaultFixtures.password()
            let folder = devices.vaults[0].layout.folder
            var patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await devices.syncAll()
            // Sealed and stored at the server, its answer lost: still in the outbox of the
            // backup below, and numbered in the former device id's sequence there.
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Eva", "Sanz"))
            await devices.server.dropNextPushResponse()
            #expect(await SyncFixtures.errorCode { _ = try await devices.engines[0].sync() } == .offline)
            try await devices.vaults[0].backup(to: dir.file("backup"))
            let deviceBefore = try await devices.vaults[0].changeLogDeviceID()

            // After the backup: a change, synced, then the device's database is lost.
            patient.phoneNumber = "+34 600 000 001"
            patient = try await devices.vaults[0].patients.update(patient)
            _ = try await devices.syncAll()
            await devices.lockAll()
            try await Vault.restore(from: dir.file("backup"), to: folder, password: password,
                                    options: VaultFixtures.options)

            let restored = try await Vault.open(at: folder, password: password, options: VaultFixtures.options)
            defer { Task { await restored.lock() } }
            #expect(try await restored.patients.get(patient.id).phoneNumber == nil)
            #expect(try await restored.changeLogDeviceID() != deviceBefore)
            let engine = SyncEngine(vault: restored, transport: devices.server)
            #expect(try await engine.credentials() == nil)
            let unjoined = await SyncFixtures.errorCode { _ = try await engine.sync() }
            #expect(unjoined == .invalidArgument)

            try await engine.join()
            // New changes reuse the local sequences the lost database had used.
            let added = try await restored.patients.create(ClinicalFixtures.patient("Luis", "Gil"))
            let result = try await engine.sync()
            // The former id's envelopes come back as another device's: no replay, no gap.
            #expect(result.errors.isEmpty && result.conflicts == 0)
            #expect(result.missingEnvelopes.isEmpty)
            #expect(try await restored.patients.get(patient.id).phoneNumber == "+34 600 000 001")

            let other = try await Vault.open(at: dir.file("device-1"), password: password, options: VaultFixtures.options)
            defer { Task { await other.lock() } }
            let otherResult = try await SyncEngine(vault: other, transport: devices.server).sync()
            #expect(otherResult.errors.isEmpty && otherResult.conflicts == 0)
            #expect(try await other.patients.get(added.id).id == added.id)
            #expect(try await SyncFixtures.export(restored) == SyncFixtures.export(other))
        }
    }

    @Test("A restored vault that never synced keeps its change-log device id")
    func unsyncedVaultKeepsDeviceID() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let vault = try await Vault.create(at: dir.file("vault"), password: password,
                                               options: VaultFixtures.options).vault
            _ = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await vault.backup(to: dir.file("backup"))
            let device = try await vault.changeLogDeviceID()
            await vault.lock()
            try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"), password: password,
                                    options: VaultFixtures.options)
            let restored = try await Vault.open(at: dir.file("vault"), password: password, options: VaultFixtures.options)
            #expect(try await restored.changeLogDeviceID() == device)
            await restored.lock()
        }
    }

    @Test("A vault folder copied by hand joins as a new device: the server never gives the original's id a second token")
    func copiedVaultJoinsAsNewDevice() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            let password = try VaultFixtures.password()
            _ = try await devices.vaults[1].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await devices.syncAll()
            let original = try #require(try await devices.engines[1].credentials())
            await devices.lockAll()
            try FileManager.default.copyItem(at: dir.file("device-1"), to: dir.file("copy"))

            let copy = try await Vault.open(at: dir.file("copy"), password: password, options: VaultFixtures.options)
            defer { Task { await copy.lock() } }
            let copyEngine = SyncEngine(vault: copy, transport: devices.server)
            try await copyEngine.join()
            let joined = try #require(try await copyEngine.credentials())
            #expect(joined.deviceID != original.deviceID)
            #expect(try await copy.changeLogDeviceID() == joined.deviceID)
            // With a key of its own: a package sealed to the original never opens on the copy.
            let keys = try await devices.server.devices(as: joined).devices.compactMap(\.certificate).map(\.boxKey)
            #expect(keys.count == 3 && Set(keys).count == 3)
            // The original keeps its id and token.
            #expect(try await devices.server.keyring(as: original).generation >= 1)

            let added = try await copy.patients.create(ClinicalFixtures.patient("Luis", "Gil"))
            #expect(try await copyEngine.sync().errors.isEmpty)
            let first = try await Vault.open(at: dir.file("device-0"), password: password, options: VaultFixtures.options)
            defer { Task { await first.lock() } }
            let result = try await SyncEngine(vault: first, transport: devices.server).sync()
            #expect(result.errors.isEmpty && result.conflicts == 0)
            #expect(try await first.patients.get(added.id).id == added.id)
        }
    }
}
