import Foundation

/// The in-memory ``AttachmentRepository``, from ``InMemoryClinicalRecords``.
///
/// It keeps the chunks it was given in memory (it is a test double); the size limit
/// is still enforced while reading the input, before anything is kept.
public struct InMemoryAttachmentRepository: AttachmentRepository {
    let store: InMemoryClinicalStore

    public var maximumByteCount: Int64 { store.maximumAttachmentByteCount }

    @discardableResult
    public func create<Content: AsyncSequence>(_ attachment: NewAttachment, content: Content) async throws
        -> Attachment where Content.Element == Data
    {
        try await store.checkNewAttachment(attachment)
        var hasher = SHA256Hasher()
        var chunks: [Data] = []
        var byteCount: Int64 = 0
        for try await chunk in content where !chunk.isEmpty {
            byteCount += Int64(chunk.count)
            guard byteCount <= maximumByteCount else {
                throw MedVaultError.validation("content", "exceeds the maximum attachment size")
            }
            hasher.update(chunk)
            chunks.append(chunk)
        }
        return try await store.insertAttachment(
            attachment, chunks: chunks, byteCount: byteCount, digest: hasher.finalize())
    }

    public func get(_ id: UUID) async throws -> Attachment {
        try await store.getAttachment(id)
    }

    public func list(sessionID: UUID) async throws -> [Attachment] {
        try await store.listAttachments(sessionID: sessionID)
    }

    public func content(of id: UUID) async throws -> AsyncThrowingStream<Data, any Error> {
        let (attachment, chunks) = try await store.attachmentContent(id)
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        var hasher = SHA256Hasher()
        var byteCount: Int64 = 0
        for chunk in chunks {
            hasher.update(chunk)
            byteCount += Int64(chunk.count)
            continuation.yield(chunk)
        }
        if byteCount == attachment.byteCount, hasher.finalize() == attachment.sha256 {
            continuation.finish()
        } else {
            continuation.finish(throwing: MedVaultError(
                .corrupted, reason: "the attachment content does not match its recorded digest"))
        }
        return stream
    }

    public func delete(_ id: UUID) async throws {
        try await store.deleteAttachment(id)
    }
}
