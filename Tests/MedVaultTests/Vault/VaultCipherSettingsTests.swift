import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Vault: the keyring's cipher settings reach every connection")
struct VaultCipherSettingsTests {
    /// Rewrites the vault's keyring with other cipher settings, properly authenticated
    /// under the vault key (what a keyring made by a differently configured build holds).
    static func rewriteKeyring(in folder: URL, password: Password, _ edit: (inout CipherSettings) -> Void) throws {
        let url = VaultLayout(folder: folder).keyring
        let keyring = try KeyringFile.read(at: url)
        let vaultKey = try keyring.unlock(password: password)
        var settings = keyring.cipherSettings
        edit(&settings)
        let edited = try Keyring.assemble(vaultID: keyring.vaultID, cipherSettings: settings, slots: keyring.slots,
                                      generation: keyring.databaseKeyGeneration, current: keyring.wrappedCurrentKey,
                                      pending: keyring.wrappedPendingKey, vaultKey: vaultKey)
        try KeyringFile.write(edited, to: url)
    }

    @Test("a vault is created with the options' settings, records them, and reopens with them")
    func createdWithGivenSettings() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            var options = VaultFixtures.options
            options.database.cipherSettings.fastKDFIterations = 3
            options.database.cipherPageSize = 8192
            let created = try await Vault.create(at: dir.url, password: password, options: options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 2)
            await created.vault.lock()
            let recorded = try KeyringFile.read(at: VaultLayout(folder: dir.url).keyring).cipherSettings
            #expect(recorded.fastKDFIterations == 3 && recorded.pageSize == 8192)
            // Opened with default options: the keyring's settings win.
            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(reopened) == 2)
            let verification = try await reopened.verify()
            #expect(verification.problemsBesidesTestKDF.isEmpty, "\(verification.problems)")
            #expect(verification.checks.contains { $0.contains("page 8192") && $0.contains("fast_kdf_iter 3") })
            await reopened.lock()
        }
    }

    @Test("a keyring whose fast_kdf_iter differs from the database's does not open: notADatabase, nothing changed")
    func fastKDFMismatchRefused() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 1)
            await created.vault.lock()
            try Self.rewriteKeyring(in: dir.url, password: password) { $0.fastKDFIterations = 3 }
            let layout = VaultLayout(folder: dir.url)
            let before = StorageFixtures.bytes(layout.database)
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            }
            #expect(error?.code == .notADatabase)
            #expect(error?.reason.contains("cipher settings") == true)
            #expect(StorageFixtures.bytes(layout.database) == before)
            // Back to the settings the database was written with, it opens.
            try Self.rewriteKeyring(in: dir.url, password: password) { $0.fastKDFIterations = 2 }
            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(vault) == 1)
            await vault.lock()
        }
    }

    @Test("verify reads every setting back from SQLCipher: the keyring's kdf_iter, not a constant")
    func verifyReadsBackEverySetting() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            let sound = try await created.vault.verify()
            #expect(sound.problemsBesidesTestKDF.isEmpty, "\(sound.problems)")
            #expect(sound.checks.contains("cipher settings as the keyring records (cipher AES-256-CBC, page 4096, HMAC on, kdf_iter 64000, fast_kdf_iter 2)"))
            await created.vault.lock()
            // With a raw key the passphrase KDF never runs, so another kdf_iter still opens;
            // what the connection runs with is the keyring's value, and verify shows it.
            try Self.rewriteKeyring(in: dir.url, password: password) { $0.kdfIterations = 100_000 }
            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            let verification = try await vault.verify()
            #expect(verification.problemsBesidesTestKDF.isEmpty, "\(verification.problems)")
            #expect(verification.checks.contains { $0.contains("kdf_iter 100000") })
            await vault.lock()
        }
    }
}
