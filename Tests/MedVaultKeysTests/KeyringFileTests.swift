import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Keyring file")
struct KeyringFileTests {
    @Test("write is atomic, mode 0600, leaves no temporary file, and reads back")
    func write() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        let created = try makeKeyring()
        try KeyringFile.write(created.keyring, to: url)
        let updated = try created.keyring.replacingPassword(Password("second"), vaultKey: created.vaultKey, kdf: .fastForTestsOnly)
        try KeyringFile.write(updated, to: url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["vault.keyring"])
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try KeyringFile.read(at: url) == updated)
        #expect(try Data(contentsOf: url) == Data(updated.serialized()))
    }

    @Test("writing into a missing folder is fileNotFound")
    func missingFolder() throws {
        let url = try makeTemporaryDirectory().appendingPathComponent("nope/vault.keyring")
        let keyring = try makeKeyring().keyring
        #expect { try KeyringFile.write(keyring, to: url) } throws: { ($0 as? MedVaultError)?.code == .fileNotFound }
    }

    @Test("destroy removes the file; the password then opens nothing")
    func destroy() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        try KeyringFile.write(try makeKeyring().keyring, to: url)
        try KeyringFile.destroy(at: url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect { _ = try KeyringFile.read(at: url) } throws: { ($0 as? MedVaultError)?.code == .fileNotFound }
        #expect { try KeyringFile.destroy(at: url) } throws: { ($0 as? MedVaultError)?.code == .fileNotFound }
    }

    @Test("an unreadable keyring is permissionDenied", .enabled(if: getuid() != 0, "root reads any file"))
    func permissionDenied() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        try KeyringFile.write(try makeKeyring().keyring, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: url.path)
        #expect { _ = try KeyringFile.read(at: url) } throws: { ($0 as? MedVaultError)?.code == .permissionDenied }
    }
}
