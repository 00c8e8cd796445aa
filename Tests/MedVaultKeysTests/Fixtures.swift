import Foundation
@testable import MedVaultKeys

/// A fresh folder under this test process's own temporary folder, which is removed when
/// the process exits (the tests' folders used to stay behind, ~15 a run).
func makeTemporaryDirectory() throws -> URL {
    let url = TemporaryFolders.root.appendingPathComponent(UUID().uuidString, isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The one folder under the system's temporary directory that holds every folder this
/// process's tests make.
enum TemporaryFolders {
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("MedVaultKeysTests-\(UUID().uuidString)", isDirectory: true)
        atexit(removeTemporaryFolders)
        return url
    }()
}

/// Removes ``TemporaryFolders/root`` (registered with `atexit`: a C function, no capture).
private func removeTemporaryFolders() {
    try? FileManager.default.removeItem(at: TemporaryFolders.root)
}

/// The hex form of some bytes.
func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The bytes of a secure buffer (tests only); empty when it was wiped.
func bytes(of secret: SecureBytes) -> [UInt8] {
    (try? secret.withUnsafeBytes { Array($0) }) ?? []
}

/// A keyring created with the fast test preset.
func makeKeyring(password: String = "correct horse battery") throws -> Keyring.Creation {
    try Keyring.create(password: Password(password), kdf: .fastForTestsOnly)
}

/// A copy of `keyring` whose fields are changed and whose file checksum is valid again
/// (the authentication tag is kept, so it no longer matches).
func tampered(
    _ keyring: Keyring,
    slots: [KeySlot]? = nil,
    cipherSettings: CipherSettings? = nil,
    generation: UInt64? = nil
) -> Keyring {
    Keyring(
        vaultID: keyring.vaultID,
        cipherSettings: cipherSettings ?? keyring.cipherSettings, slots: slots ?? keyring.slots,
        databaseKeyGeneration: generation ?? keyring.databaseKeyGeneration,
        wrappedCurrentKey: keyring.wrappedCurrentKey, wrappedPendingKey: keyring.wrappedPendingKey,
        authenticationTag: keyring.authenticationTag, auditRecord: keyring.auditRecord
    )
}
