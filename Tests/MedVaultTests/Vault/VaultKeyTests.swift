import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Vault: passwords, recovery key, slots, lock and destroy")
struct VaultKeyTests {
    @Test("A password typed in NFC and the same password in NFD open the same vault")
    func unicodeNormalisation() async throws {
        try await withTemporaryDirectory { dir in
            let composed = "Jos\u{00E9} contraseña"
            let decomposed = "Jose\u{0301} contrasen\u{0303}a"
            #expect(Array(composed.utf8) != Array(decomposed.utf8))
            let created = try await Vault.create(at: dir.url, password: try Password(composed), options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 3)
            await created.vault.lock()
            let vault = try await Vault.open(at: dir.url, password: try Password(decomposed), options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(vault) == 3)
            await vault.lock()
        }
    }

    @Test("Wrong password, wrong recovery key and a damaged keyring give distinct errors and change no file")
    func refusalsChangeNothing() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 2)
            await created.vault.lock()
            let layout = VaultLayout(folder: dir.url)
            let keyringBefore = try Data(contentsOf: layout.keyring)
            let databaseBefore = try Data(contentsOf: layout.database)

            let wrongPassword = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: try Password("otra"), options: VaultFixtures.options)
            }
            #expect(wrongPassword?.code == .wrongPassword)
            let wrongRecovery = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, recoveryKey: RecoveryKey.generate(), options: VaultFixtures.options)
            }
            #expect(wrongRecovery?.code == .wrongRecoveryKey)
            #expect(try Data(contentsOf: layout.keyring) == keyringBefore)
            #expect(try Data(contentsOf: layout.database) == databaseBefore)

            var damaged = keyringBefore
            damaged[damaged.count / 2] ^= 0x01
            try damaged.write(to: layout.keyring)
            let corrupted = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(corrupted?.code == .corrupted)
            #expect(try Data(contentsOf: layout.keyring) == damaged)
            #expect(try Data(contentsOf: layout.database) == databaseBefore)
        }
    }

    @Test("Change password: the old one fails, the new one works, the recovery key works, the database is not rewritten")
    func changePassword() async throws {
        try await withTemporaryDirectory { dir in
            let old = try VaultFixtures.password("vieja")
            let new = try VaultFixtures.password("nueva")
            let created = try await Vault.create(at: dir.url, password: old, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 5)
            await created.vault.lock()
            let layout = VaultLayout(folder: dir.url)
            let databaseBefore = try Data(contentsOf: layout.database)

            let vault = try await Vault.open(at: dir.url, password: old, options: VaultFixtures.options)
            let wrongCurrent = await #expect(throws: MedVaultError.self) {
                try await vault.changePassword(from: try Password("no"), to: new)
            }
            #expect(wrongCurrent?.code == .wrongPassword)
            try await vault.changePassword(from: old, to: new)
            await vault.lock()
            // Not re-encrypted: the unlock and the password change each append an audit
            // entry (docs/audit.md), which rewrites the few pages of that table and the
            // header; every other page is byte for byte the same (a new key would change them all).
            let databaseAfter = try Data(contentsOf: layout.database)
            let changedPages = VaultFixtures.changedPages(databaseBefore, databaseAfter)
            let pageCount = databaseBefore.count / 4096
            #expect(pageCount >= 20)
            #expect(changedPages <= 4, "\(changedPages) of \(pageCount) pages changed")

            let oldFails = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: old, options: VaultFixtures.options)
            }
            #expect(oldFails?.code == .wrongPassword)
            let reopened = try await Vault.open(at: dir.url, password: new, options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(reopened) == 5)
            await reopened.lock()
            let byRecovery = try await Vault.open(at: dir.url, recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(byRecovery) == 5)
            await byRecovery.lock()
        }
    }

    @Test("Reset with the recovery key: the old password fails, the new one works")
    func resetWithRecoveryKey() async throws {
        try await withTemporaryDirectory { dir in
            let old = try VaultFixtures.password("olvidada")
            let created = try await Vault.create(at: dir.url, password: old, options: VaultFixtures.options)
            await created.vault.lock()
            let typed = try RecoveryKey(parsing: created.recoveryKey.formatted.lowercased())
            let reset = try await Vault.resetPassword(at: dir.url, recoveryKey: typed,
                                                      newPassword: try Password("recuperada"), options: VaultFixtures.options)
            await reset.lock()
            let oldFails = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: old, options: VaultFixtures.options)
            }
            #expect(oldFails?.code == .wrongPassword)
            let vault = try await Vault.open(at: dir.url, password: try Password("recuperada"), options: VaultFixtures.options)
            await vault.lock()
            let wrongKey = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.resetPassword(at: dir.url, recoveryKey: RecoveryKey.generate(),
                                                  newPassword: try Password("x"), options: VaultFixtures.options)
            }
            #expect(wrongKey?.code == .wrongRecoveryKey)
        }
    }

    @Test("Regenerating the recovery key retires the old one")
    func regenerateRecoveryKey() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let newKey = try await created.vault.regenerateRecoveryKey()
            await created.vault.lock()
            let oldFails = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            }
            #expect(oldFails?.code == .wrongRecoveryKey)
            let vault = try await Vault.open(at: dir.url, recoveryKey: newKey, options: VaultFixtures.options)
            await vault.lock()
        }
    }

    @Test("A platform slot opens the vault without a password until it is removed")
    func platformSlot() async throws {
        try await withTemporaryDirectory { dir in
            let store = InMemorySecretStore()
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let slot = try await created.vault.addPlatformSlot(store: store)
            #expect(await created.vault.slots.contains { $0.id == slot && $0.kind == .platform })
            await created.vault.lock()
            let vault = try await Vault.open(at: dir.url, secretStore: store, options: VaultFixtures.options)
            try await vault.removeSlot(id: slot)
            await vault.lock()
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, secretStore: store, options: VaultFixtures.options)
            }
            #expect(error?.code == .notFound)
        }
    }

    @Test("After lock, database and key operations fail with `locked`")
    func lockedVault() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            await vault.lock()
            #expect(await vault.isLocked)
            let read = await #expect(throws: MedVaultError.self) { _ = try await VaultFixtures.patientCount(vault) }
            #expect(read?.code == .locked)
            let regenerate = await #expect(throws: MedVaultError.self) { _ = try await vault.regenerateRecoveryKey() }
            #expect(regenerate?.code == .locked)
            let rotate = await #expect(throws: MedVaultError.self) { try await vault.rotateDatabaseKey() }
            #expect(rotate?.code == .locked)
            let destroy = await #expect(throws: MedVaultError.self) { try await vault.destroy() }
            #expect(destroy?.code == .locked)
        }
    }

    @Test("Destroy crypto-shreds: the keyring is gone and neither password nor recovery key opens anything")
    func destroy() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: folder, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 2)
            try await created.vault.destroy()
            #expect(!FileManager.default.fileExists(atPath: VaultLayout(folder: folder).keyring.path))
            #expect(!FileManager.default.fileExists(atPath: VaultLayout(folder: folder).database.path))
            let byPassword = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: folder, password: password, options: VaultFixtures.options)
            }
            #expect(byPassword?.code == .fileNotFound)
            let byRecovery = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: folder, recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            }
            #expect(byRecovery?.code == .fileNotFound)
        }
    }

    @Test("A missing keyring, an occupied folder and a keyring from another vault are refused")
    func layoutErrors() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let first = try await Vault.create(at: dir.file("a"), password: password, options: VaultFixtures.options)
            await first.vault.lock()
            let occupied = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.create(at: dir.file("a"), password: password, options: VaultFixtures.options)
            }
            #expect(occupied?.code == .duplicate)

            let second = try await Vault.create(at: dir.file("b"), password: password, options: VaultFixtures.options)
            await second.vault.lock()
            // b's keyring beside a's database: the key unwraps but does not decrypt the file.
            try FileManager.default.removeItem(at: VaultLayout(folder: dir.file("a")).keyring)
            try FileManager.default.copyItem(at: VaultLayout(folder: dir.file("b")).keyring,
                                             to: VaultLayout(folder: dir.file("a")).keyring)
            let swapped = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.file("a"), password: password, options: VaultFixtures.options)
            }
            #expect(swapped?.code == .notADatabase)

            try FileManager.default.removeItem(at: VaultLayout(folder: dir.file("a")).keyring)
            let missing = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.file("a"), password: password, options: VaultFixtures.options)
            }
            #expect(missing?.code == .fileNotFound)
        }
    }
}
