import Foundation
import MedVault
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `medvault` when another process has the vault: exit status 9 and one clear line.
@Suite("CLI: a vault in use by another process")
struct CLIVaultInUseTests {
    @Test("rotate-key while another process holds the vault exits 9 with one 'in use … try again' line and changes nothing")
    func rotateKeyRefusedWhileHeld() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            // The hold probe opens with "probe", which `medvault init` refuses as too short:
            // the vault is made by the library with the test fixtures' waived policy.
            await (try await Vault.create(at: folder, password: try Password("probe"), options: VaultFixtures.options)).vault.lock()
            let child = try ProbeChild(["hold", folder.path], outputURL: directory.file("hold.txt"))
            try #require(try await child.waitForLines(1), "the hold probe did not open the vault")
            let keyring = folder.appendingPathComponent("records.medvault.keyring")
            let before = StorageFixtures.keyMaterial(keyring)
            let result = try await CLIHarness.run(["rotate-key", folder.path, "--password-stdin"], input: "probe\n")
            #expect(result.status == 9)
            #expect(result.errorLinesWithoutWarnings == [
                "medvault: error: the vault is in use: another process (or another open Vault) has this vault open; close it there and try again",
            ])
            #expect(result.standardOutput.isEmpty)
            #expect(StorageFixtures.keyMaterial(keyring) == before, "a refused rotate-key changed the keyring")
            try child.closeInput()
            try await child.waitForExit()
            let retried = try await CLIHarness.run(["rotate-key", folder.path, "--password-stdin"], input: "probe\n")
            #expect(retried.status == 0, "\(retried.standardError)")
            #expect(retried.standardOutput == "Database key rotated (key generation 2).\n")
        }
    }
}
