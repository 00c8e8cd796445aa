import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The sync engine end to end through the in-memory server: convergence, echo, retry,
/// offline, tampering, revocation, join with the recovery key.
@Suite("Sync engine")
struct SyncEngineTests {
    @Test("Two devices converge: every record kind of one reaches the other, field by field, and nothing echoes back")
    func twoDevicesConverge() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Ana")
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Luis")
            let first = try await devices.engines[0].sync()
            #expect(first.uploaded == 12)
            let second = try await devices.engines[1].sync()
            #expect(second.downloaded == 12)
            #expect(second.uploaded == 0)   // applied changes are not echoed back
            #expect(second.errors.isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[1].patients.search("Luis", filter: .all, limit: 10).count == 1)

            // And back: an edit on the second device reaches the first.
            var patient = try #require(try await devices.vaults[1].patients.search("Ana", filter: .all, limit: 10).first)
            patient.address = "Calle Mayor 1"
            _ = try await devices.vaults[1].patients.update(patient)
            try await devices.syncAll()
            #expect(try await devices.vaults[0].patients.get(patient.id).address == "Calle Mayor 1")
            let again = try await devices.exports()
            #expect(again[0] == again[1])
            #expect(await devices.server.envelopeCount(vaultID: devices.vaults[0].vaultID) == 13)
        }
    }

    @Test("A password change and a new recovery key on one device reach the other through the keyring's compare-and-swap: the new ones open it, the old ones no longer")
    func keyringChangesSync() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let old = try VaultFixtures.password()
            let new = try Password("otra contraseña")
            try await devices.vaults[0].changePassword(from: old, to: new)
            let recovery = try await devices.vaults[0].regenerateRecoveryKey()
            let blobBefore = try await devices.server.keyring(as: try #require(try await devices.engines[0].credentials()))
            try await devices.syncAll()
            let credentials = try #require(try await devices.engines[0].credentials())
            #expect(try await devices.server.keyring(as: credentials).generation == blobBefore.generation + 1)
            let folderB = devices.vaults[1].layout.folder
            await devices.vaults[1].lock()
            let reopened = try await Vault.open(at: folderB, password: new, options: VaultFixtures.options)
            await reopened.lock()
            let recovered = try await Vault.open(at: folderB, recoveryKey: recovery, options: VaultFixtures.options)
            await recovered.lock()
            do {
                _ = try await Vault.open(at: folderB, password: old, options: VaultFixtures.options)
                Issue.record("the old password still opens the other device")
            } catch let error as MedVaultError {
                #expect(error.code == .wrongPassword)
            }
        }
    }

    @Test("A synced keyring of another vault is not adopted; the keyring file is untouched")
    func foreignKeyringRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let other = try await Vault.create(at: dir.file("other"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            defer { Task { await other.lock() } }
            let foreign = try Data(contentsOf: other.layout.keyring)
            let before = try Data(contentsOf: devices.vaults[0].layout.keyring)
            do {
                try await devices.vaults[0].adoptSyncedKeyring(try Keyring(serialized: Array(foreign)))
                Issue.record("adopted another vault's keyring")
            } catch let error as MedVaultError {
                #expect(error.code == .corrupted)
            }
            #expect(try Data(contentsOf: devices.vaults[0].layout.keyring) == before)
        }
    }

    @Test("Each device has a database key of its own: another device's key opens no other database; rotating one device's key still lets password changes flow both ways")
    func perDeviceDatabaseKeys() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let old = try VaultFixtures.password()
            func databaseKey(_ vault: Vault, _ password: Password) throws -> [UInt8] {
                let keyring = try KeyringFile.read(at: vault.layout.keyring)
                let key = try keyring.databaseKey(vaultKey: try keyring.unlock(password: password))
                return try key.withUnsafeBytes { Array($0) }
            }
            let keyA = try databaseKey(devices.vaults[0], old)
            #expect(keyA != (try databaseKey(devices.vaults[1], old)), "the joined device has its own database key")
            // A's key does not decrypt B's database.
            let wrongKey = #expect(throws: MedVaultError.self) {
                let probe = try DatabaseConnection.open(path: devices.vaults[1].layout.database.path,
                                                        key: SecureBytes(copying: keyA), role: .reader,
                                                        configuration: DatabaseConfiguration())
                probe.close()
            }
            #expect(wrongKey?.code == .notADatabase || wrongKey?.code == .wrongKey, "\(String(describing: wrongKey))")

            // B rotates its own key; then A changes the password, and later B changes it again.
            try await devices.vaults[1].rotateDatabaseKey()
            _ = try await SyncFixtures.addRecord(to: devices.vaults[0])
            let second = try Password("segunda contraseña")
            try await devices.vaults[0].changePassword(from: old, to: second)
            try await devices.syncAll()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let folderB = devices.vaults[1].layout.folder
            await devices.vaults[1].lock()
            let reopenedB = try await Vault.open(at: folderB, password: second, options: VaultFixtures.options)
            let third = try Password("tercera contraseña")
            try await reopenedB.changePassword(from: second, to: third)
            let engineB = SyncEngine(vault: reopenedB, transport: devices.server)
            _ = try await engineB.sync()
            _ = try await devices.engines[0].sync()
            await reopenedB.lock()
            let folderA = devices.vaults[0].layout.folder
            await devices.vaults[0].lock()
            let reopenedA = try await Vault.open(at: folderA, password: third, options: VaultFixtures.options)
            #expect(try await reopenedA.patients.count() == 1)
            await reopenedA.lock()
        }
    }

    @Test("A device's platform slot stays on it: the other device neither adopts it nor loses its own when a password change arrives")
    func platformSlotsStayLocal() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let storeA = InMemorySecretStore(), storeB = InMemorySecretStore()
            _ = try await devices.vaults[0].addPlatformSlot(store: storeA)
            let slotB = try await devices.vaults[1].addPlatformSlot(store: storeB)
            try await devices.syncAll()
            let new = try Password("otra contraseña")
            try await devices.vaults[0].changePassword(from: try VaultFixtures.password(), to: new)
            try await devices.syncAll()
            let keyringB = try KeyringFile.read(at: devices.vaults[1].layout.keyring)
            #expect(keyringB.slots(ofKind: .platform).map(\.id) == [slotB])
            let folderB = devices.vaults[1].layout.folder
            await devices.vaults[1].lock()
            let byPassword = try await Vault.open(at: folderB, password: new, options: VaultFixtures.options)
            await byPassword.lock()
            let byStore = try await Vault.open(at: folderB, secretStore: storeB, options: VaultFixtures.options)
            await byStore.lock()
        }
    }

    @Test("An attachment's metadata and content reach the other device")
    func attachmentMetadataAndContent() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            let session = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45,
                notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
            let attachment = try await vault.attachments.create(
                NewAttachment(sessionID: session.id, fileName: "informe.pdf", mimeType: "application/pdf"),
                data: Data("contenido".utf8))
            try await devices.syncAll()
            #expect(try await devices.vaults[1].attachments.get(attachment.id) == attachment)
            // Its content travels as chunk envelopes (docs/sync.md, "Attachments").
            #expect(try await devices.vaults[1].attachments.data(of: attachment.id) == Data("contenido".utf8))
        }
    }
}
