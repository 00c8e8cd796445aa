import Foundation
@testable import MedVault
import MedVaultTestSupport
import Testing

@Suite("Vault.exists")
struct VaultExistenceTests {
    @Test("true for a created vault, false for an empty folder, a missing one, or a deleted keyring")
    func existence() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            #expect(!Vault.exists(at: folder))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(!Vault.exists(at: folder))
            let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
            await created.vault.lock()
            #expect(Vault.exists(at: folder))
            try FileManager.default.removeItem(at: VaultLayout(folder: folder).keyring)
            #expect(!Vault.exists(at: folder))
        }
    }
}
