import Foundation
import MedVaultCore

/// Reads, writes and destroys the keyring file beside the database.
///
/// For example:
///
/// ```swift
/// try KeyringFile.write(keyring, to: folder.appendingPathComponent("vault.keyring"))
/// let keyring = try KeyringFile.read(at: folder.appendingPathComponent("vault.keyring"))
/// ```
public enum KeyringFile {
    /// Reads and decodes a keyring file.
    ///
    /// - Parameter url: The file.
    /// - Returns: The keyring.
    /// - Throws: `MedVaultError.Code.fileNotFound` when there is no file;
    ///   `MedVaultError.Code.permissionDenied` when it cannot be read;
    ///   `MedVaultError.Code.corrupted` when it is empty, truncated, altered or of another format;
    ///   `MedVaultError.Code.schemaTooNew` for a newer format.
    public static func read(at url: URL) throws -> Keyring {
        try Keyring(serialized: AtomicFile.read(url))
    }

    /// Writes a keyring atomically with mode 0600: a temporary file in the same folder is
    /// written and fsynced, renamed over `url`, and the folder is fsynced. A crash leaves
    /// either the old file or the new one.
    ///
    /// - Parameters:
    ///   - keyring: The keyring.
    ///   - url: The destination.
    /// - Throws: `MedVaultError.Code.fileNotFound` when the folder does not exist;
    ///   `MedVaultError.Code.permissionDenied`; `MedVaultError.Code.storage` (disk full…).
    public static func write(_ keyring: Keyring, to url: URL) throws {
        let bytes = keyring.serialized()
        try bytes.withUnsafeBytes { try AtomicFile.write($0, to: url) }
    }

    /// Crypto-shreds the keyring: overwrites the file with random bytes, fsyncs, removes it
    /// and fsyncs the folder. Without the keyring the database key cannot be recovered.
    ///
    /// On SSDs and copy-on-write file systems an overwrite may not reach the old blocks, and
    /// backups of the keyring keep working: the guarantee is only as good as the places the
    /// keyring was copied to.
    ///
    /// - Parameter url: The keyring file.
    /// - Throws: `MedVaultError.Code.fileNotFound` when there is no file; `MedVaultError.Code.permissionDenied`;
    ///   `MedVaultError.Code.storage`.
    public static func destroy(at url: URL) throws {
        try AtomicFile.destroy(url)
    }
}
