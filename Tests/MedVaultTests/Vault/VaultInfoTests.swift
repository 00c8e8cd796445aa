import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import Testing

@Suite("Vault: info and verify")
struct VaultInfoTests {
    @Test("info reports formats, settings and counts")
    func info() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 4)
            let info = try await created.vault.info()
            #expect(info.vaultID == created.vault.vaultID)
            #expect(info.recordCounts["patient"] == 4)
            #expect(info.schemaVersion == MedVaultSchema.migrator.latestVersion)
            #expect(info.cipherSettings.pageSize == 4096)
            #expect(info.sqlcipherVersion.hasPrefix("3."))
            #expect(info.slots.map(\.kind) == [.password, .recovery])
            #expect(info.databaseKeyGeneration == 1)
            await created.vault.lock()
            let locked = await #expect(throws: MedVaultError.self) { _ = try await created.vault.info() }
            #expect(locked?.code == .locked)
        }
    }

    @Test("verify finds a sound vault sound, and reports files readable by others")
    func verify() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 2)
            let sound = try await created.vault.verify()
            #expect(sound.isSound, "\(sound.problems)")
            #expect(sound.checks.count >= 6)
            try FileManager.default.setAttributes([.posixPermissions: 0o644],
                                                  ofItemAtPath: VaultLayout(folder: dir.url).keyring.path)
            let exposed = try await created.vault.verify()
            #expect(!exposed.isSound)
            #expect(exposed.problems.contains { $0.contains("readable by other users") })
            await created.vault.lock()
        }
    }
}
