import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
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
            #expect(info.recordCounts["medication_stock_adjustment"] == 0)
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
            // The production floor itself: a vault made with the test preset is never sound.
            var options = VaultFixtures.options
            options.kdf = .productionFloor
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 2)
            #expect(try await created.vault.info().weakPasswordSlots.isEmpty)
            let sound = try await created.vault.verify()
            #expect(sound.isSound, "\(sound.problems)")
            #expect(sound.checks.count >= 6)
            try FileManager.default.setAttributes([.posixPermissions: 0o644],
                                                  ofItemAtPath: VaultLayout(folder: dir.url).keyring.path)
            let exposed = try await created.vault.verify()
            #expect(!exposed.isSound)
            #expect(exposed.problems.contains { $0.contains("open to other users") })
            await created.vault.lock()
        }
    }

    @Test("a password slot below the production floor is flagged by info and is a verify problem")
    func weakSlot() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let info = try await created.vault.info()
            #expect(info.weakPasswordSlots.map(\.kind) == [.password])
            #expect(info.slots.filter(\.isBelowProductionFloor).count == 1)
            let verification = try await created.vault.verify()
            #expect(verification.checks.contains("password slots meet the Argon2id production floor"))
            #expect(verification.problems == [
                "a password slot uses Argon2id m=8 KiB, t=1, below the production floor (m=19456 KiB, t=2)",
            ])
            await created.vault.lock()
        }
    }
}
