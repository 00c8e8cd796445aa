import Foundation
import MedVaultCore

/// How a write transaction's `COMMIT` reaches the disk.
///
/// Every write of the public API is ``full``: `synchronous = FULL`, the commit's WAL
/// frames are synced before the caller returns (docs/storage.md). The pool uses
/// ``walOnly`` for one write alone: the audit trail's `unlock` entry at open
/// (docs/audit.md, "The unlock entry"), which must not cost an open an `fsync`.
enum CommitDurability: Sendable {
    /// Committed durably: `synchronous = FULL`.
    case full
    /// Committed to the write-ahead log under `synchronous = NORMAL`: the transaction is
    /// committed (every connection and process sees it, and it survives the process
    /// being killed), but not yet on the disk surface. The next `full` commit, a WAL
    /// checkpoint, closing the last connection or ``LazyConnection/syncDeferredCommits()``
    /// makes it durable; an OS crash or power loss before that may lose it (never
    /// corrupts the database: SQLite still syncs the WAL header in WAL mode). A group
    /// commit that holds any `full` write commits `full`.
    case walOnly
}

extension LazyConnection {
    /// Makes every commit this writer made with ``CommitDurability/walOnly`` durable:
    /// one `fsync` of the write-ahead log, none when there was no such commit since the
    /// last call. Called before anything outside the database names a head written so
    /// (the audit checkpoint file).
    ///
    /// - Throws: `storage` (or `diskFull`) when the log cannot be synced.
    func syncDeferredCommits() throws {
        guard hasDeferredSync else { return }
        try DatabaseFile.syncLog(of: path)
        hasDeferredSync = false
    }
}
