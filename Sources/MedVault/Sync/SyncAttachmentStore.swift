import Foundation
import MedVaultCore

/// Attachment contents for the sync engine (module MedVaultSync): reading a complete
/// attachment's chunks one at a time to seal them, and staging received chunks until
/// the attachment can be completed (migration "sync attachment staging").
///
/// Package API. Every function runs inside the caller's transaction. A received
/// attachment is written by sync as an incomplete `attachment` row (invisible to every
/// read) marked in `sync_attachment_incoming`; its chunks wait in
/// `sync_attachment_chunk`. When the row and every chunk are here, ``complete(_:_:)``
/// checks the total size and SHA-256 against the row, moves the chunks to
/// `attachment_chunk` and sets `is_complete = 1`, all in the caller's transaction: a
/// kill leaves the attachment staged or complete, never half moved.
package enum SyncAttachmentStore {
    /// What ``complete(_:_:)`` found.
    package enum Completion: Sendable, Equatable {
        /// The attachment is complete now (its chunks moved, its digest checked).
        case completed
        /// Chunks or the metadata are still missing: nothing changed.
        case waiting
        /// Every chunk is here but the size or SHA-256 does not match the metadata: the
        /// staged chunks were dropped, the attachment stays unavailable.
        case corrupted
        /// Nothing to do: no incoming attachment with this id.
        case none
    }

    /// The number of chunk rows an attachment of `byteCount` bytes has (64 KiB each).
    package static func chunkCount(byteCount: Int64) -> Int64 {
        let size = Int64(SQLCipherAttachmentRepository.chunkByteCount)
        return byteCount <= 0 ? 0 : (byteCount + size - 1) / size
    }

    /// Calls `body` with each stored chunk of the complete attachment `id`, in order,
    /// reading one chunk at a time (the content is never held whole).
    ///
    /// - Returns: The number of chunks read; 0 for an attachment that is not complete
    ///   here or has no content.
    @discardableResult
    package static func forEachChunk(of id: UUID, _ db: DatabaseConnection,
                                     _ body: (_ seq: Int64, _ data: Data) throws -> Void) throws -> Int64 {
        guard let byteCount = try db.fetchOne("SELECT byte_count FROM attachment WHERE id = ? AND is_complete = 1",
                                              [id.vaultValue], { $0.int64(at: 0) }) else { return 0 }
        let count = chunkCount(byteCount: byteCount)
        for seq in 0..<count {
            guard let data = try db.fetchOne("SELECT data FROM attachment_chunk WHERE attachment_id = ? AND seq = ?",
                                             [id.vaultValue, .integer(seq)], { $0.blob(at: 0) }) else {
                throw MedVaultError(.corrupted, reason: "a stored attachment is missing a chunk")
            }
            try body(seq, data)
        }
        return count
    }

    /// Stages a received chunk of attachment `id`, unless that attachment is complete
    /// here already (a chunk sent again), then completes the attachment when it can.
    /// The completion's audit entry names `origin`, the device the chunk came from.
    ///
    /// - Throws: `validation` for an index below 0 or data over 64 KiB (nothing is
    ///   written); storage errors.
    package static func stage(_ id: UUID, seq: Int64, data: Data, origin: UUID?,
                              _ db: DatabaseConnection) throws -> Completion {
        guard seq >= 0, !data.isEmpty, data.count <= SQLCipherAttachmentRepository.chunkByteCount else {
            throw MedVaultError(.validation, field: "chunk", reason: "an attachment chunk is out of range")
        }
        // Complete here already: a chunk sent again, ignored; unless the attachment came
        // before contents travelled (complete, content missing): its chunks are welcome.
        if try db.fetchOne("SELECT 1 FROM attachment WHERE id = ? AND is_complete = 1", [id.vaultValue], { _ in true })
            != nil, try !isMissingContent(id, db) { return .none }
        try db.execute("INSERT OR REPLACE INTO sync_attachment_chunk (attachment_id, seq, data) VALUES (?, ?, ?)",
                       [id.vaultValue, .integer(seq), .blob(data)])
        let completion = try complete(id, db)
        if completion == .completed {
            // The metadata was applied (and logged) earlier, invisible: observers and
            // the audit trail learn now that the attachment became readable.
            let version = try db.fetchOne("SELECT version FROM attachment WHERE id = ?", [id.vaultValue]) {
                $0.int64(at: 0)
            }
            try db.changeLog.append(table: .attachment, id: id, operation: .update, version: version, origin: origin)
        }
        return completion
    }

    /// Called after sync wrote (or refused, or deleted) the metadata row of attachment
    /// `id`: an incomplete row is marked incoming and completed when its chunks are
    /// all here; for a row that is absent (deleted, refused) or complete already the
    /// staged chunks and the marker are dropped.
    package static func metadataApplied(_ id: UUID, _ db: DatabaseConnection) throws -> Completion {
        let isComplete = try db.fetchOne("SELECT is_complete FROM attachment WHERE id = ?", [id.vaultValue]) {
            $0.int64(at: 0)
        }
        guard isComplete == 0 else {
            try drop(id, db)
            return .none
        }
        try db.execute("INSERT OR IGNORE INTO sync_attachment_incoming (attachment_id) VALUES (?)", [id.vaultValue])
        return try complete(id, db)
    }

    /// Completes the incoming attachment `id` when its metadata row and every chunk are
    /// here: checks each chunk's length, the total size and the SHA-256 against the
    /// row, then moves the chunks and sets `is_complete = 1`.
    package static func complete(_ id: UUID, _ db: DatabaseConnection) throws -> Completion {
        let legacy = try isMissingContent(id, db)
        let incoming = try db.fetchOne("SELECT 1 FROM sync_attachment_incoming WHERE attachment_id = ?",
                                       [id.vaultValue], { _ in true }) != nil
        guard legacy || incoming,
              let (byteCount, digest) = try db.fetchOne(
                "SELECT byte_count, sha256 FROM attachment WHERE id = ? AND is_complete = ?",
                [id.vaultValue, .integer(legacy ? 1 : 0)], { ($0.int64(at: 0), $0.blob(at: 1)) })
        else { return .none }
        let count = chunkCount(byteCount: byteCount)
        let staged = try db.fetchOne("SELECT count(*) FROM sync_attachment_chunk WHERE attachment_id = ? AND seq < ?",
                                     [id.vaultValue, .integer(count)], { $0.int64(at: 0) }) ?? 0
        guard staged == count else { return .waiting }
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        let size = Int64(SQLCipherAttachmentRepository.chunkByteCount)
        var lengthsMatch = true
        for seq in 0..<count {
            let data = try db.fetchOne("SELECT data FROM sync_attachment_chunk WHERE attachment_id = ? AND seq = ?",
                                       [id.vaultValue, .integer(seq)], { $0.blob(at: 0) }) ?? Data()
            let expected = seq == count - 1 ? byteCount - size * (count - 1) : size
            if Int64(data.count) != expected { lengthsMatch = false; break }
            total += Int64(data.count)
            hasher.update(data)
        }
        guard lengthsMatch, total == byteCount, Data(hasher.finalize().bytes) == digest else {
            try db.execute("DELETE FROM sync_attachment_chunk WHERE attachment_id = ?", [id.vaultValue])
            return .corrupted
        }
        // An attachment synced before contents travelled is complete without chunks:
        // reopened for the chunks (the `attachment_chunk_sealed` rule) and sealed again,
        // in this one transaction.
        if legacy { try db.execute("UPDATE attachment SET is_complete = 0 WHERE id = ?", [id.vaultValue]) }
        try db.execute("""
            INSERT INTO attachment_chunk (attachment_id, seq, data) \
            SELECT attachment_id, seq, data FROM sync_attachment_chunk WHERE attachment_id = ? AND seq < ? ORDER BY seq
            """, [id.vaultValue, .integer(count)])
        try db.execute("UPDATE attachment SET is_complete = 1 WHERE id = ? AND is_complete = 0", [id.vaultValue])
        try drop(id, db)
        return .completed
    }

    /// Whether attachment `id` is complete here with content but without a single
    /// chunk row: one synced before contents travelled (metadata only).
    package static func isMissingContent(_ id: UUID, _ db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("""
            SELECT 1 FROM attachment a WHERE a.id = ? AND a.is_complete = 1 AND a.byte_count > 0 \
            AND NOT EXISTS (SELECT 1 FROM attachment_chunk c WHERE c.attachment_id = a.id)
            """, [id.vaultValue], { _ in true }) != nil
    }

    /// The attachments this device synced before contents travelled, whose chunks it
    /// still has to send (migration "sync attachment staging"), with their sync clock.
    package static func pendingResends(_ db: DatabaseConnection) throws -> [(id: UUID, hlc: Int64)] {
        try db.fetchAll("""
            SELECT r.attachment_id, coalesce(c.hlc, 0) FROM sync_attachment_resend r \
            LEFT JOIN sync_record_clock c ON c.table_name = 'attachment' AND c.record_id = r.attachment_id \
            ORDER BY r.attachment_id
            """) { (try UUID(row: $0, column: 0), $0.int64(at: 1)) }
    }

    /// Marks attachment `id`'s chunks as sent again (see ``pendingResends(_:)``).
    package static func markResent(_ id: UUID, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM sync_attachment_resend WHERE attachment_id = ?", [id.vaultValue])
    }

    /// Drops what is staged for attachment `id`: its chunks and its incoming marker.
    package static func drop(_ id: UUID, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM sync_attachment_chunk WHERE attachment_id = ?", [id.vaultValue])
        try db.execute("DELETE FROM sync_attachment_incoming WHERE attachment_id = ?", [id.vaultValue])
    }

    /// How many attachments are incoming (metadata here, content not complete) and how
    /// many chunks are staged: for tests and diagnostics.
    package static func stagedCounts(_ db: DatabaseConnection) throws -> (incoming: Int64, chunks: Int64) {
        let incoming = try db.fetchOne("SELECT count(*) FROM sync_attachment_incoming", [], { $0.int64(at: 0) }) ?? 0
        let chunks = try db.fetchOne("SELECT count(*) FROM sync_attachment_chunk", [], { $0.int64(at: 0) }) ?? 0
        return (incoming, chunks)
    }
}
