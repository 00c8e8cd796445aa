import Foundation
import MedVaultCore

/// The SQLCipher `AttachmentRepository`: metadata in the `attachment` table, content
/// in 64 KiB rows of `attachment_chunk`, streamed in and out.
///
/// Writing never holds a whole file in memory, although a write transaction's closure
/// is synchronous and cannot await the caller's content. So an attachment is stored in
/// stages:
///
/// 1. One transaction checks the session and the id and inserts the row, marked
///    incomplete (`is_complete = 0`). Every read ignores incomplete rows.
/// 2. The content is read chunk by chunk, hashed and measured as it comes, and cut into
///    64 KiB chunk rows appended in transactions of at most
///    ``chunksPerTransaction`` chunks: peak memory is about one such batch (1 MiB).
/// 3. A last transaction appends the remaining chunks and seals the row with its size,
///    SHA-256 and timestamps (`is_complete = 1`).
///
/// On any error (the limit, the content's own error, cancellation, storage), the
/// incomplete row and its chunks are deleted and the error is rethrown: nothing is
/// stored. A process that dies mid-way leaves an invisible incomplete row, removed by
/// ``removeIncompleteAttachments()``.
///
/// For example:
///
/// ```swift
/// let attachments = SQLCipherAttachmentRepository(pool: pool)
/// let stored = try await attachments.create(
///     NewAttachment(sessionID: session.id, fileName: "scan.png", mimeType: "image/png"), content: chunks)
/// for try await chunk in try await attachments.content(of: stored.id) { consume(chunk) }
/// ```
public struct SQLCipherAttachmentRepository: AttachmentRepository {
    /// The size of a stored chunk row: 64 KiB.
    public static let chunkByteCount = 64 * 1024
    /// How many chunk rows one write transaction appends (16: 1 MiB per commit).
    public static let chunksPerTransaction = 16
    /// The default maximum attachment size: 100 MiB.
    public static let defaultMaximumByteCount: Int64 = 100 * 1024 * 1024

    /// The database.
    public let pool: VaultDatabase
    /// Where "now" comes from.
    public let clock: RecordClock
    /// The largest content accepted, in bytes.
    public let maximumByteCount: Int64

    /// Creates a repository over `pool`, whose schema is ``MedVaultSchema/migrator``'s.
    ///
    /// - Parameters:
    ///   - pool: The open database.
    ///   - clock: Where timestamps read "now".
    ///   - maximumByteCount: The largest content accepted.
    public init(pool: VaultDatabase, clock: RecordClock = .system,
                maximumByteCount: Int64 = SQLCipherAttachmentRepository.defaultMaximumByteCount) {
        self.pool = pool
        self.clock = clock
        self.maximumByteCount = maximumByteCount
    }

    static let insertChunk = "INSERT INTO attachment_chunk (attachment_id, seq, data) VALUES (?, ?, ?)"

    // MARK: - Writing

    @discardableResult
    public func create<Content: AsyncSequence>(_ attachment: NewAttachment, content: Content) async throws
        -> Attachment where Content.Element == Data
    {
        try attachment.validate()
        try await pool.write { db in
            try ClinicalSQL.inserting(parentField: "sessionID") {
                try db.execute("""
                    INSERT INTO attachment (id, session_id, file_name, mime_type, is_complete, created_at, \
                    updated_at, version) VALUES (?, ?, ?, ?, 0, 0, 0, 1)
                    """, [attachment.id.vaultValue, attachment.sessionID.vaultValue,
                          .text(attachment.fileName), .text(attachment.mimeType)])
            }
        }
        do {
            return try await storeContent(of: attachment, content)
        } catch {
            // A fresh task: the cleanup must run even when this one was cancelled.
            let pool = pool
            await Task {
                try? await pool.write(duration: .long) { db in
                    try db.execute("DELETE FROM attachment WHERE id = ? AND is_complete = 0",
                                   [attachment.id.vaultValue])
                }
            }.value
            throw error
        }
    }

    private func storeContent<Content: AsyncSequence>(of attachment: NewAttachment, _ content: Content)
        async throws -> Attachment where Content.Element == Data
    {
        let chunkSize = Self.chunkByteCount
        var hasher = SHA256Hasher()
        var byteCount: Int64 = 0
        var nextSeq: Int64 = 0
        var buffer = Data(capacity: chunkSize)
        var pending: [Data] = []
        for try await chunk in content where !chunk.isEmpty {
            byteCount += Int64(chunk.count)
            guard byteCount <= maximumByteCount else {
                throw MedVaultError.validation("content", "exceeds the maximum attachment size")
            }
            hasher.update(chunk)
            var rest = chunk[...]
            while !rest.isEmpty {
                let take = min(chunkSize - buffer.count, rest.count)
                buffer.append(rest.prefix(take))
                rest = rest.dropFirst(take)
                guard buffer.count == chunkSize else { continue }
                pending.append(buffer)
                buffer = Data(capacity: chunkSize)
                if pending.count == Self.chunksPerTransaction {
                    let batch = pending
                    let first = nextSeq
                    try await pool.write(duration: .long) { db in
                        try Self.append(batch, from: first, to: attachment.id, db)
                    }
                    nextSeq += Int64(batch.count)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        if !buffer.isEmpty { pending.append(buffer) }
        let now = clock.now()
        let stored = Attachment(
            id: attachment.id, sessionID: attachment.sessionID, fileName: attachment.fileName,
            mimeType: attachment.mimeType, byteCount: byteCount, sha256: hasher.finalize(),
            createdAt: now, updatedAt: now, version: 1)
        let (batch, first) = (pending, nextSeq)
        try await pool.write(duration: .long) { db in
            try Self.append(batch, from: first, to: attachment.id, db)
            try db.execute("""
                UPDATE attachment SET byte_count = ?, sha256 = ?, is_complete = 1, created_at = ?, updated_at = ? \
                WHERE id = ? AND is_complete = 0
                """, [.integer(stored.byteCount), .blob(Data(stored.sha256.bytes)), stored.createdAt.vaultValue,
                      stored.updatedAt.vaultValue, stored.id.vaultValue])
            // The session was deleted meanwhile, and the incomplete row with it.
            guard db.changedRowCount == 1 else { throw ClinicalSQL.notFound("sessionID") }
            // An attachment becomes a record when complete: logged then, not per chunk.
            try db.changeLog.append(stored, .insert)
        }
        return stored
    }

    private static func append(_ chunks: [Data], from first: Int64, to id: UUID, _ db: DatabaseConnection) throws {
        for (offset, chunk) in chunks.enumerated() {
            try ClinicalSQL.inserting(parentField: "sessionID") {
                try db.execute(insertChunk, [id.vaultValue, .integer(first + Int64(offset)), .blob(chunk)])
            }
        }
    }

    /// Deletes the incomplete attachments a process that stopped while storing one left
    /// behind (invisible to every read). An attachment sync is receiving (its metadata
    /// here, its chunks still travelling) is incomplete too, but marked: it stays. Call
    /// it when the database is opened, before any attachment is being stored: it would
    /// also remove one in progress.
    ///
    /// - Returns: The number of incomplete attachments removed.
    @discardableResult
    public func removeIncompleteAttachments() async throws -> Int {
        // Usually there is none: a short read says so without a write transaction or a
        // hop to the writer's thread (this runs at every open of a vault).
        let anyIncomplete = try await pool.read { db in
            try db.fetchOne("SELECT EXISTS (SELECT 1 FROM attachment WHERE \(Self.leftoverCondition))") { try $0[0] as Bool }
        }
        guard anyIncomplete == true else { return 0 }
        // Long: each incomplete attachment takes its chunks (up to the size limit) along.
        return try await pool.write(duration: .long) { db in
            try db.execute("DELETE FROM attachment WHERE \(Self.leftoverCondition)")
            return db.changedRowCount
        }
    }

    /// An incomplete attachment that is a crashed local write's leftover: not one that
    /// sync is receiving (metadata here, chunks still travelling, marked in
    /// `sync_attachment_incoming`; see `SyncAttachmentStore`).
    static let leftoverCondition = """
        is_complete = 0 AND NOT EXISTS (SELECT 1 FROM sync_attachment_incoming i WHERE i.attachment_id = attachment.id)
        """

    public func delete(_ id: UUID) async throws {
        // Long: the attachment's chunks (up to the size limit) are deleted with it.
        try await pool.write(duration: .long) { db in
            guard let (status, version) = try db.fetchOne("""
                SELECT s.status, a.version FROM attachment a JOIN clinical_session s ON s.id = a.session_id \
                WHERE a.id = ? AND a.is_complete = 1
                """, [id.vaultValue], { (try $0[0] as String, $0.int64(at: 1)) })
            else { throw ClinicalSQL.notFound() }
            guard status != SessionStatus.completed.rawValue else { throw ClinicalSQL.completedStatus }
            try db.execute("DELETE FROM attachment WHERE id = ?", [id.vaultValue])
            try db.changeLog.append(table: .attachment, id: id, operation: .delete, version: version)
        }
    }

    // MARK: - Reading

    static let selectByID = """
        SELECT \(ClinicalRows.AttachmentColumn.selection) FROM attachment WHERE id = ? AND is_complete = 1
        """

    public func get(_ id: UUID) async throws -> Attachment {
        try await pool.read { db in
            guard let attachment = try db.fetchOne(Self.selectByID, [id.vaultValue], {
                try ClinicalRows.attachment($0)
            }) else { throw ClinicalSQL.notFound() }
            return attachment
        }
    }

    public func list(sessionID: UUID) async throws -> [Attachment] {
        try await pool.read { db in
            guard try db.fetchOne("SELECT 1 FROM clinical_session WHERE id = ?", [sessionID.vaultValue],
                                  { _ in true }) != nil
            else { throw ClinicalSQL.notFound("sessionID") }
            return try db.fetchAll("""
                SELECT \(ClinicalRows.AttachmentColumn.selection) FROM attachment \
                WHERE session_id = ? AND is_complete = 1 ORDER BY created_at, id
                """, [sessionID.vaultValue]) { try ClinicalRows.attachment($0) }
        }
    }

    public func content(of id: UUID) async throws -> AsyncThrowingStream<Data, any Error> {
        let reader = AttachmentContentReader(pool: pool, attachment: try await get(id))
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }
}
