import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Two devices and their server as the library before the sync secret left them
/// (`Tests/Vectors/sync-fixture-v1/`, written at commit 10a4048 by the generator kept
/// beside it; `sync-fixture-v1.json` lists what each held): three patients synced, a
/// fourth on A never pushed, the keyring on the server in the clear.
@Suite("Sync: devices and a server from before the sync secret upgrade without losing a record")
struct SyncFixtureUpgradeTests {
    struct Manifest: Decodable {
        struct Device: Decodable {
            struct Row: Decodable {
                var id: UUID
                var firstName: String
                var lastName: String
            }

            var folder: String
            var patients: [Row]
        }

        var password: String
        var devices: [String: Device]
        var unsyncedOnA: UUID
    }

    static let vectors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    /// Copies the fixture (opening migrates it; the committed files stay as written) with a vault folder's modes.
    static func copyFixture(to folder: URL) throws {
        let manager = FileManager.default
        try manager.copyItem(at: vectors.appendingPathComponent("sync-fixture-v1"), to: folder)
        for device in ["device-a", "device-b"] {
            let path = folder.appendingPathComponent(device)
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path.path)
            for name in try manager.contentsOfDirectory(atPath: path.path) {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.appendingPathComponent(name).path)
            }
        }
    }

    @Test("Every patient, synced or not, reaches both devices; the keyring is sealed on the server; the second device is told and takes the secret")
    func upgradeKeepsEveryRecord() async throws {
        let manifest = try JSONDecoder().decode(
            Manifest.self, from: Data(contentsOf: Self.vectors.appendingPathComponent("sync-fixture-v1.json")))
        let a = try #require(manifest.devices["a"])
        let b = try #require(manifest.devices["b"])
        #expect(a.patients.count == 4)
        #expect(b.patients.count == 3)
        #expect(!b.patients.contains { $0.id == manifest.unsyncedOnA })
        try await withTemporaryDirectory { dir in
            let root = dir.file("fixture")
            try Self.copyFixture(to: root)
            let server = try InMemorySyncTransport(persistingTo: root.appendingPathComponent("server.json"))
            let password = try Password(manifest.password)
            let vaultA = try await Vault.open(at: root.appendingPathComponent(a.folder), password: password,
                                              options: VaultFixtures.options)
            defer { Task { await vaultA.lock() } }
            let vaultB = try await Vault.open(at: root.appendingPathComponent(b.folder), password: password,
                                              options: VaultFixtures.options)
            defer { Task { await vaultB.lock() } }
            let vaults = [vaultA, vaultB]
            let engines = vaults.map { SyncEngine(vault: $0, transport: server) }
            let credentials = try #require(try await engines[0].credentials())
            #expect(!SealedKeyring.isSealed(try await server.keyring(as: credentials).keyring))
            #expect(try await engines[0].syncSecret() == nil)

            let first = try await engines[0].sync()
            #expect(first.keyring == .published)
            #expect(first.uploaded >= 1)
            let secret = try #require(try await engines[0].syncSecret())
            #expect(SealedKeyring.isSealed(try await server.keyring(as: credentials).keyring))
            let second = try await engines[1].sync()
            #expect(second.keyring == .syncSecretNeeded)
            #expect(second.errors.isEmpty)
            try await engines[1].adoptSyncSecret(secret)
            #expect(try await engines[1].sync().keyring == .unchanged)

            for vault in vaults {
                for row in a.patients {
                    let patient = try await vault.patients.get(row.id)
                    #expect(patient.firstName == row.firstName)
                    #expect(patient.lastName == row.lastName)
                }
                #expect(try await vault.patients.count() == a.patients.count)
                #expect(try await vault.audit.verify().isIntact)
            }

            // Sync epochs on the upgraded vault (still epoch 0: its proofs derive from the
            // vault key): both devices certified their keys at that sync, a third joins
            // with the recovery kit, and a revocation of B re-keys to epoch 1 without it.
            let devices = try await engines[0].devices()
            #expect(devices.map(\.isCertified) == [true, true])
            let joined = try await Vault.join(at: dir.file("device-c"), keyring: try await server.keyring(as: credentials).keyring,
                                              syncSecret: secret, password: password, options: VaultFixtures.options)
            defer { Task { await joined.lock() } }
            let engineC = SyncEngine(vault: joined, transport: server)
            try await engineC.join()
            _ = try await engineC.sync()
            #expect(try await joined.patients.count() == a.patients.count)
            try await engines[0].revoke(device: try #require(try await engines[1].credentials()).deviceID)
            #expect(try await server.keyring(as: credentials).epoch == 1)
            let after = try await vaultA.patients.create(ClinicalFixtures.patient("Despues", "Ruiz"))
            _ = try await engines[0].sync()
            _ = try await engineC.sync()
            #expect(try await joined.patients.get(after.id).lastName == "Ruiz")
            await expectMedVaultError(.unauthorized) { try await engines[1].sync() }
        }
    }
}
