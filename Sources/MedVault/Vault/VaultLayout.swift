import Foundation

/// Where a vault keeps its files: a folder holding the encrypted database and,
/// beside it, the keyring that wraps the database key.
///
/// ```
/// clinic/
///   records.medvault          SQLCipher database (+ -wal, -shm while open)
///   records.medvault.keyring  keyring: slots, wrapped database key (docs/keyring-format.md)
///   records.medvault.lock     presence lock: shared while a process has the vault open
///   records.medvault.keyring.lock  keyring lock: exclusive for keyring changes and opening
///   records.medvault.audit    audit-trail checkpoint (docs/audit.md)
///   records.medvault.unlock-failures  refused unlocks not yet in the audit trail
///   records.medvault.creating  only while the vault is being created
/// ```
///
/// The two lock files are empty; `flock(2)` on them is how processes sharing the vault
/// coordinate (docs/storage.md, "Several processes").
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

    /// The presence lock: held shared by every process that has the vault open.
    public var presenceLock: URL { folder.appendingPathComponent("records.medvault.lock") }
    /// The keyring lock: held exclusively while the keyring is changed or the vault opened.
    public var keyringLock: URL { folder.appendingPathComponent("records.medvault.keyring.lock") }

    /// The audit trail's checkpoint: its head, authenticated, outside the database (docs/audit.md).
    var auditCheckpoint: URL { folder.appendingPathComponent("records.medvault.audit") }
    /// Failed unlock attempts not yet moved into the audit trail.
    var unlockFailures: URL { folder.appendingPathComponent("records.medvault.unlock-failures") }
    /// Present while a vault is being created: a database beside it without a keyring is
    /// an interrupted creation, which the next creation removes.
    var creationMarker: URL { folder.appendingPathComponent("records.medvault.creating") }

    /// The dose journal an extension writes with its limited key (docs/extensions.md).
    public var doseJournal: URL { folder.appendingPathComponent("records.medvault.journal") }
    /// A new journal while it is written, before it replaces ``doseJournal``.
    var doseJournalStaging: URL { folder.appendingPathComponent("records.medvault.journal.new") }
    /// A revoked journal while its entries are merged.
    var doseJournalRevoked: URL { folder.appendingPathComponent("records.medvault.journal.revoked") }
    /// Held exclusively by every issue, revocation, merge and plan of the dose journal.
    var doseJournalLock: URL { folder.appendingPathComponent("records.medvault.journal.lock") }

    /// Every file the vault may have but its lock files, for destruction.
    var allFiles: [URL] {
        [database, keyring, DatabaseKeyChange.copyURL(for: database), doseJournal, doseJournalStaging,
         doseJournalRevoked]
            .flatMap { url in ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) } }
            + [auditCheckpoint, unlockFailures, creationMarker]
    }
}
