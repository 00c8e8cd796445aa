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

    /// The prefix of every dose journal's file name.
    static let doseJournalPrefix = "records.medvault.journal-"

    /// The dose journal an extension holding `key` writes (docs/extensions.md): each key
    /// has a file of its own, named after a digest of the key, so a journal is never
    /// renamed under an extension that has it open, and a revoked key finds no file.
    ///
    /// - Throws: `locked` when the key was wiped.
    public func doseJournal(for key: DoseJournalKey) throws -> URL {
        folder.appendingPathComponent(Self.doseJournalPrefix + (try key.secret.labelledFingerprint("medvault dose journal file")))
    }

    /// Held exclusively by every issue, revocation, merge and plan of the dose journal.
    var doseJournalLock: URL { folder.appendingPathComponent("records.medvault.journal.lock") }

    /// Every dose journal file in the folder (databases and companions).
    func doseJournalFiles() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(Self.doseJournalPrefix) }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Every file the vault may have but its lock files, for destruction.
    var allFiles: [URL] {
        [database, keyring, DatabaseKeyChange.copyURL(for: database)]
            .flatMap { url in ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) } }
            + [auditCheckpoint, unlockFailures, creationMarker] + doseJournalFiles()
    }
}
