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
    /// Committed to the write-ahead log without a sync: the transaction is committed
    /// (every connection and process sees it, and it survives the process being
    /// killed), but not yet on the disk surface. The next `full` commit, a WAL
    /// checkpoint, closing the last connection or ``LazyConnection/syncDeferredCommits()``
    /// makes it durable; an OS crash or power loss before that may lose it, never
    /// corrupt the database (see ``LazyConnection/beginDeferringSync(_:)``). A group
    /// commit that holds any `full` write commits `full`. Only for small writes (a few
    /// pages): the writer's inline checkpoint past `CheckpointScheduler`'s threshold
    /// would run under the transaction's level.
    case walOnly
}

extension LazyConnection {
    /// Begins the write transaction of ``CommitDurability/walOnly`` writes: under
    /// `synchronous = OFF` when the write-ahead log is empty and was created since this
    /// connection opened (no write of this connection since), else `NORMAL`. The caller
    /// restores `FULL` after the transaction (SQLite changes the level only outside one).
    ///
    /// Why OFF is safe on a new, empty log only: SQLite syncs the log's header when it starts
    /// the log over (unless OFF) because, after a restart, frames of the previous log
    /// still lie in the file; a header lost in a power cut while new frames reached the
    /// disk could make recovery mistake old frames for new. A log that did not exist
    /// when this connection opened and is still empty never held a frame on this disk
    /// (a log truncated to 0 bytes by a checkpoint might: SQLite does not sync the
    /// truncation, so that case takes NORMAL). Left open: another process writing to the
    /// new log and truncating it between this connection's open and this transaction
    /// (microseconds at `Vault.open`); its frames were synced and checkpointed, so a
    /// replay would rewrite pages with what the database file holds. On such a log a
    /// power cut before the next sync loses this commit, as `NORMAL`
    /// would, and recovery finds no valid header or stops at the first invalid frame.
    /// The next `full` commit syncs the header and frames (and, as the handle's first
    /// sync, the folder entry of a log created since). No checkpoint copies a frame to
    /// the database file before syncing the log: the pool's checkpoints run on the
    /// checkpoint connection, under `FULL`. The emptiness is checked holding the write
    /// lock (`BEGIN IMMEDIATE`): no other connection or process can append or restart
    /// the log before this commit. When it is not empty, the transaction begins again
    /// under `NORMAL`, which keeps the header sync.
    func beginDeferringSync(_ connection: DatabaseConnection) throws {
        let created = logCreatedSinceOpen
        try connection.executeScript("PRAGMA synchronous = OFF;")
        try connection.execute("BEGIN IMMEDIATE")
        if created && DatabaseFile.logIsEmpty(of: path) { return }
        try connection.execute("ROLLBACK")
        try connection.executeScript("PRAGMA synchronous = NORMAL;")
        try connection.execute("BEGIN IMMEDIATE")
    }

    /// Makes every commit this writer made with ``CommitDurability/walOnly`` durable:
    /// one `fsync` of the write-ahead log and its folder, none when there was no such
    /// commit since the last call, unless `force`: another process's unlock entry may
    /// lie unsynced in the same log, which this writer's flag cannot know. Called before
    /// anything outside the database names a head (the audit checkpoint file), with
    /// `force`.
    ///
    /// - Throws: `storage` (or `diskFull`) when the log cannot be synced.
    func syncDeferredCommits(force: Bool = false) throws {
        guard hasDeferredSync || force else { return }
        try DatabaseFile.syncLog(of: path)
        hasDeferredSync = false
    }
}
