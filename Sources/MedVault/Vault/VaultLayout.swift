import Foundation

/// Where a vault keeps its files: a folder holding the encrypted database and,
/// beside it, the keyring that wraps the database key.
///
/// ```
/// clinic/
///   records.medvault          SQLCipher database (+ -wal, -shm while open)
///   records.medvault.keyring  keyring: slots, wrapped database key (docs/keyring-format.md)
/// ```
public struct VaultLayout: Sendable, Hashable {
    /// The vault's folder.
    public let folder: URL

    /// The layout of the vault in `folder`.
    public init(folder: URL) {
        self.folder = folder.standardizedFileURL
    }

    /// The encrypted database.
    public var database: URL { folder.appendingPathComponent("records.medvault") }
    /// The keyring beside it.
    public var keyring: URL { folder.appendingPathComponent("records.medvault.keyring") }

    /// Every file the vault may have, for destruction.
    var allFiles: [URL] {
        [database, keyring, DatabaseKeyChange.copyURL(for: database)]
            .flatMap { url in ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) } }
    }
}
