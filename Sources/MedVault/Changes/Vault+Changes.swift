import Foundation
import MedVaultCore

extension Vault {
    // MARK: - Reading the change log

    /// Reads the change log after `cursor`, oldest first.
    ///
    /// Every committed repository operation (and every logged change of an app table) has
    /// exactly one entry, written in the same transaction; see docs/changes.md.
    ///
    /// ```swift
    /// let page = try await vault.changes(after: savedCursor, limit: 500)
    /// for entry in page.entries { print(entry.table, entry.recordID, entry.operation) }
    /// savedCursor = page.next
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: Where the last page ended; `nil` reads from the start of the log
    ///     (refused with `notFound` once entries were pruned: take a snapshot instead).
    ///   - limit: The most entries to return, 1…10,000.
    /// - Returns: The entries and the cursor after them.
    /// - Throws: `invalidArgument` for a limit out of range, a cursor of another
    ///   vault, or a cursor ahead of this vault's log (the database was replaced by an
    ///   older copy: re-read from the start); `notFound` when entries after the cursor
    ///   were pruned (``pruneChanges(through:)``): the reader missed them; `locked`.
    public func changes(after cursor: ChangeCursor? = nil, limit: Int = 500) async throws -> ChangePage {
        guard (1...ChangeLogReader.maximumPageSize).contains(limit) else {
            throw MedVaultError(.invalidArgument, reason: "a page of changes holds 1 to \(ChangeLogReader.maximumPageSize) entries")
        }
        let start = try checked(cursor)
        let vaultID = vaultID
        return try await database.read { db in
            try Self.requireReadable(after: start, db)
            let entries = try ChangeLogReader.entries(after: start, limit: limit + 1, db)
            let page = Array(entries.prefix(limit))
            return ChangePage(entries: page,
                              next: ChangeCursor(vaultID: vaultID, sequence: page.last?.sequence ?? start),
                              hasMore: entries.count > limit)
        }
    }

    /// The cursor after the newest entry: reading from it returns only changes
    /// committed later.
    ///
    /// - Throws: `locked`.
    public func latestChangeCursor() async throws -> ChangeCursor {
        let vaultID = vaultID
        return try await database.read { db in
            ChangeCursor(vaultID: vaultID, sequence: try ChangeLogReader.latestSequence(db))
        }
    }

    /// Deletes the change log's entries up to and including `cursor`.
    ///
    /// Nothing prunes the log but this call: sync and audit need it. Prune only what
    /// every reader (your sync engine, your audit export) has consumed. The newest entry
    /// of the log is always kept: it anchors the sequence (never reused) and the clock
    /// (timestamps keep rising). A reader whose cursor
    /// is older than the pruned point gets `notFound` from ``changes(after:limit:)``
    /// rather than silently missing entries.
    ///
    /// - Parameter cursor: The last entry to delete (typically a page's `next`); the
    ///   newest entry of the log stays even when the cursor points at it.
    /// - Returns: How many entries were deleted.
    /// - Throws: `invalidArgument` for a cursor of another vault or ahead of the log; `locked`.
    @discardableResult
    public func pruneChanges(through cursor: ChangeCursor) async throws -> Int {
        let through = try checked(cursor)
        return try await database.write { db in
            guard through <= (try ChangeLogReader.latestSequence(db)) else { throw Self.cursorAheadError }
            return try ChangeLogReader.prune(through: through, db)
        }
    }

    /// The identifier of this vault database as the writer of change-log entries:
    /// random, drawn once when the change log was created. A backup and its restore
    /// keep it (docs/changes.md, "Device id").
    public func changeLogDeviceID() async throws -> UUID {
        try await database.read { db in try ChangeLogReader.deviceID(db) }
    }

    /// Draws a new random device id for the entries this vault database writes from
    /// now on; earlier entries keep theirs.
    ///
    /// Call it after restoring a backup onto a second device while the original
    /// vault stays in use: both copies would otherwise write entries under the same
    /// device id, which a sync engine would take for one writer.
    ///
    /// - Returns: The new device id.
    /// - Throws: `locked`; storage errors.
    @discardableResult
    public func renewChangeLogDeviceID() async throws -> UUID {
        let id = UUID()
        try await database.write { db in
            try db.execute("INSERT INTO medvault_device (device_id) VALUES (?)", [id.vaultValue])
        }
        return id
    }

    // MARK: - Cursor checks

    static let cursorAheadError = MedVaultError(
        .invalidArgument,
        reason: "the change cursor is ahead of this vault's change log: the database was replaced by an older copy; read again from the start")

    /// The cursor's sequence, after checking it belongs to this vault.
    private func checked(_ cursor: ChangeCursor?) throws -> Int64 {
        guard let cursor else { return 0 }
        guard cursor.vaultID == vaultID else {
            throw MedVaultError(.invalidArgument, reason: "the change cursor belongs to another vault")
        }
        return cursor.sequence
    }

    private static func requireReadable(after sequence: Int64, _ db: DatabaseConnection) throws {
        guard sequence <= (try ChangeLogReader.latestSequence(db)) else { throw cursorAheadError }
        guard sequence >= (try ChangeLogReader.prunedThrough(db)) else {
            throw MedVaultError(.notFound,
                                reason: "the change log was pruned past this cursor: the entries after it are gone")
        }
    }
}
