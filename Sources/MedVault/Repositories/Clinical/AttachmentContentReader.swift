import Foundation
import MedVaultCore

/// Reads an attachment's chunks one read transaction at a time, hashing and measuring
/// them, and fails with `MedVaultError.Code.corrupted` when what was read does not
/// match the recorded size and SHA-256.
///
/// It backs the `AsyncThrowingStream` of ``SQLCipherAttachmentRepository/content(of:)``:
/// memory use is one chunk, whatever the attachment's size.
actor AttachmentContentReader {
    private let pool: VaultDatabase
    private let attachment: Attachment
    private var hasher = SHA256Hasher()
    private var byteCount: Int64 = 0
    private var nextSeq: Int64 = 0
    private var isFinished = false

    init(pool: VaultDatabase, attachment: Attachment) {
        self.pool = pool
        self.attachment = attachment
    }

    static let corrupted = MedVaultError(.corrupted, reason: "the attachment content does not match its recorded digest")

    /// The next chunk, or `nil` at the verified end.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` on a size or digest mismatch; a storage
    ///   error.
    func next() async throws -> Data? {
        guard !isFinished else { return nil }
        let (id, seq) = (attachment.id, nextSeq)
        let chunk = try await pool.read { db in
            try db.fetchOne("""
                SELECT seq, data FROM attachment_chunk WHERE attachment_id = ? AND seq >= ? ORDER BY seq LIMIT 1
                """, [id.vaultValue, .integer(seq)]) { row in (row.int64(at: 0), row.blob(at: 1)) }
        }
        if let (seq, data) = chunk {
            nextSeq = seq + 1
            byteCount += Int64(data.count)
            guard byteCount <= attachment.byteCount else {
                isFinished = true
                throw Self.corrupted
            }
            hasher.update(data)
            return data
        }
        isFinished = true
        guard byteCount == attachment.byteCount, hasher.finalize() == attachment.sha256 else {
            throw Self.corrupted
        }
        return nil
    }
}
