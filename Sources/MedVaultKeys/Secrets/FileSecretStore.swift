import Foundation
import MedVaultCore

/// A ``SecretStore`` that keeps each secret in its own file (mode 0600, written
/// atomically) inside one folder, for Linux and for tests.
///
/// File names are the hex SHA-256 of the account name, so an account name can never
/// reach outside the folder. This store is only as safe as the folder's permissions and
/// the disk's encryption: it protects against a copied keyring, not against someone who
/// can read the folder. Prefer the Keychain on Apple platforms.
///
/// For example:
///
/// ```swift
/// let store = try FileSecretStore(directory: supportFolder.appending(path: "secrets"))
/// ```
public struct FileSecretStore: SecretStore {
    /// The folder that holds the secret files.
    public let directory: URL

    /// Creates the store, creating `directory` with mode 0700 if it does not exist.
    ///
    /// - Parameter directory: The folder to keep secrets in.
    /// - Throws: `MedVaultError.Code.permissionDenied` or `MedVaultError.Code.storage`
    ///   when the folder cannot be created.
    public init(directory: URL) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw MedVaultError(.storage, reason: "could not create the secret store folder")
        }
    }

    /// Writes `secret` atomically to the account's file.
    public func store(_ secret: SecureBytes, account: String) throws {
        try secret.withUnsafeBytes { try AtomicFile.write($0, to: url(for: account)) }
    }

    /// Reads the account's file into secure memory, or returns `nil` when it does not exist.
    public func load(account: String) throws -> SecureBytes? {
        try AtomicFile.readSecret(url(for: account))
    }

    /// Overwrites and removes the account's file; does nothing when it does not exist.
    public func delete(account: String) throws {
        let url = url(for: account)
        do {
            try AtomicFile.destroy(url)
        } catch let error as MedVaultError where error.code == .fileNotFound {
            return
        }
    }

    /// The file that holds `account`'s secret.
    public func url(for account: String) -> URL {
        let name = SHA256Digest.of(Data(account.utf8)).hex
        return directory.appendingPathComponent(name + ".secret")
    }
}
