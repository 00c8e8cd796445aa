import Foundation

/// Stores session attachments, streaming their content in and out in chunks so a
/// large file never has to sit in memory whole.
///
/// Size and SHA-256 are measured while the content is written and checked again on
/// every read: a mismatch ends the read stream with ``MedVaultError/Code/corrupted``.
///
/// For example:
///
/// ```swift
/// let stored = try await attachments.create(
///     NewAttachment(sessionID: session.id, fileName: "scan.png", mimeType: "image/png"),
///     content: chunks)                       // any AsyncSequence of Data
/// for try await chunk in try await attachments.content(of: stored.id) {
///     try handle.write(contentsOf: chunk)
/// }
/// ```
public protocol AttachmentRepository: Sendable {
    /// The largest content accepted, in bytes.
    var maximumByteCount: Int64 { get }

    /// Stores an attachment, reading `content` chunk by chunk.
    ///
    /// - Parameters:
    ///   - attachment: Its id, session, file name and MIME type.
    ///   - content: The bytes, in order, as chunks of any size (empty chunks are ignored).
    /// - Returns: The stored metadata with size and digest; version 1.
    /// - Throws: ``MedVaultError/Code/validation`` (see ``NewAttachment/validationErrors()``;
    ///   field `content` as soon as the content exceeds ``maximumByteCount``);
    ///   ``MedVaultError/Code/notFound`` (field `sessionID`); ``MedVaultError/Code/duplicate``;
    ///   or the error `content` threw. Nothing is stored on error.
    @discardableResult
    func create<Content: AsyncSequence>(_ attachment: NewAttachment, content: Content) async throws
        -> Attachment where Content.Element == Data

    /// The attachment with `id`.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> Attachment

    /// The attachments of a session, oldest first (then by id).
    ///
    /// - Throws: ``MedVaultError/Code/notFound`` (field `sessionID`).
    func list(sessionID: UUID) async throws -> [Attachment]

    /// The content, as a stream of chunks (of unspecified sizes).
    ///
    /// The stream throws ``MedVaultError/Code/corrupted`` when the stored bytes no longer
    /// match the recorded size or digest: at the latest when it reaches the end, so
    /// consume it to the end before trusting what was read.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func content(of id: UUID) async throws -> AsyncThrowingStream<Data, any Error>

    /// Deletes an attachment of a session that is not completed.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/immutable``
    ///   (field `status`) when its session is completed.
    func delete(_ id: UUID) async throws
}

extension AttachmentRepository {
    /// Stores an attachment whose content is already in memory.
    @discardableResult
    public func create(_ attachment: NewAttachment, data: Data) async throws -> Attachment {
        try await create(attachment, content: DataChunks(data: data, chunkSize: 64 * 1024))
    }

    /// Reads a whole attachment into memory (for small files), verifying it.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/corrupted``.
    public func data(of id: UUID) async throws -> Data {
        var result = Data()
        for try await chunk in try await content(of: id) {
            result.append(chunk)
        }
        return result
    }
}
