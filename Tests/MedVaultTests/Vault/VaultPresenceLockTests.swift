import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Opening a vault while a process holds its presence lock alone without the keyring lock
/// (one that is ending — SIGKILL closes its files one by one — or one that breaks the
/// protocol): the open waits for it within a bound, then says to try again.
@Suite("Vault: a presence lock held out of turn")
struct VaultPresenceLockTests {
    @Test("An open waits for a presence lock held alone, then fails with vaultInUse saying to try again; once released, it opens")
    func presenceHeldOutOfTurn() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            await (try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)).vault.lock()
            var options = VaultFixtures.options
            options.lockTimeout = .milliseconds(300)
            let descriptor = open(VaultLayout(folder: dir.url).presenceLock.path, O_RDWR)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: password, options: options)
            }
            #expect(error?.code == .vaultInUse)
            #expect(error?.reason.contains("try again") == true)
            #expect(flock(descriptor, LOCK_UN) == 0)
            await (try await Vault.open(at: dir.url, password: password, options: options)).lock()
        }
    }
}
