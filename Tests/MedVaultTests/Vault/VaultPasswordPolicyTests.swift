import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A new password meets the vault's `PasswordPolicy` at create, change and reset (issue
/// #31): refused before any key is derived, and nothing changes.
@Suite("Vault: the password policy at create, change and reset")
struct VaultPasswordPolicyTests {
    /// The fast test KDF with MedVault's standard policy (VaultFixtures.options waives it).
    static let options = Vault.Options(kdf: .fastForTestsOnly)
    static let strong = "correct horse battery staple"

    @Test("A weak password creates nothing: no file in the folder")
    func createRefusesWeak() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("vault")
            for weak in ["probe", "aaaaaaaaaaaaaaaa"] {
                let error = await #expect(throws: MedVaultError.self) {
                    _ = try await Vault.create(at: folder, password: try Password(weak), options: Self.options)
                }
                #expect(error?.code == .validation && error?.field == "password")
                #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty ?? true)
            }
            let created = try await Vault.create(at: folder, password: try Password(Self.strong), options: Self.options)
            await created.vault.lock()
        }
    }

    @Test("A weak new password changes nothing, by change or by reset; the old password and the recovery key still open")
    func changeAndResetRefuseWeak() async throws {
        try await withTemporaryDirectory { dir in
            let password = try Password(Self.strong)
            let created = try await Vault.create(at: dir.url, password: password, options: Self.options)
            let before = try Data(contentsOf: created.vault.layout.keyring)
            let changed = await #expect(throws: MedVaultError.self) {
                try await created.vault.changePassword(from: password, to: try Password("short"))
            }
            #expect(changed?.field == "password")
            #expect(try Data(contentsOf: created.vault.layout.keyring) == before)
            await created.vault.lock()
            let reset = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.resetPassword(at: dir.url, recoveryKey: created.recoveryKey,
                                                  newPassword: try Password("123456789012345678"), options: Self.options)
            }
            #expect(reset?.code == .validation)
            #expect(try Data(contentsOf: created.vault.layout.keyring) == before)
            await (try await Vault.open(at: dir.url, password: password, options: Self.options)).lock()
            await (try await Vault.open(at: dir.url, recoveryKey: created.recoveryKey, options: Self.options)).lock()
        }
    }
}
