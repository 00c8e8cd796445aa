import Foundation

/// Where a ``Vault/backup(to:options:progress:)`` or a
/// ``Vault/restore(from:to:password:options:progress:)`` stands.
public struct BackupProgress: Sendable, Equatable {
    /// The steps of a backup or a restore, in order.
    public enum Phase: String, Sendable, Equatable {
        /// A backup: the database snapshot is being exported into the temporary folder.
        /// A restore: the backup's files are being copied next to the target.
        case copying
        /// The copy is being checked: it opens with its key, passes
        /// `PRAGMA integrity_check`, has a known schema and the expected record counts.
        case verifying
        /// The verified copy was renamed into place.
        case finished
    }

    /// The current step.
    public let phase: Phase
    /// The fraction of the database copied so far, 0…1 (1 from ``Phase/verifying`` on).
    public let fractionCopied: Double

    /// A progress report.
    public init(phase: Phase, fractionCopied: Double) {
        self.phase = phase
        self.fractionCopied = fractionCopied
    }
}

/// What a backup or a restore checked: the copy's schema version and record counts,
/// read from the verified copy. No record content.
public struct BackupReport: Sendable, Equatable {
    /// The vault's identifier (the same in the backup and the vault it was taken from).
    public let vaultID: UUID
    /// The copy's schema version (`PRAGMA user_version`).
    public let schemaVersion: Int
    /// Rows per table of the copy, by table name (`patient`, `clinical_session`, …),
    /// as ``VaultInfo/recordCounts`` reports them.
    public let recordCounts: [String: Int]
    /// The size of the copy's database file in bytes.
    public let databaseByteCount: Int
    /// Whether a backup wrote its copy under a new database key (always `false` in a
    /// restore's report).
    public let hasNewDatabaseKey: Bool
}

extension Vault {
    /// How ``Vault/backup(to:options:progress:)`` writes its copy.
    public struct BackupOptions: Sendable, Equatable {
        /// Encrypt the copy under a new random database key (the keyring copy then wraps
        /// that key) instead of the vault's current one. The copy opens with the same
        /// password and recovery key either way; a new key means that the copy and the
        /// live file share no database key, so a leaked database key of one does not
        /// decrypt the other.
        public var newDatabaseKey: Bool

        /// Backup options; the default keeps the current database key.
        public init(newDatabaseKey: Bool = false) {
            self.newDatabaseKey = newDatabaseKey
        }
    }
}
