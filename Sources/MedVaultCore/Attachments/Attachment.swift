import Foundation

/// A file attached to a clinical session (a scan, a report, an image): its metadata.
/// The content is read with ``AttachmentRepository/content(of:)``.
public struct Attachment: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// The session the file belongs to.
    public var sessionID: UUID
    /// The file's name, such as `informe.pdf`.
    public var fileName: String
    /// The MIME type, such as `application/pdf`.
    public var mimeType: String
    /// The content's size in bytes, measured while it was stored.
    public var byteCount: Int64
    /// The content's SHA-256, computed while it was stored and checked on every read.
    public var sha256: SHA256Digest
    /// When the record was stored (set by the repository).
    public var createdAt: Date
    /// When the record was last stored (set by the repository; equals `createdAt`).
    public var updatedAt: Date
    /// The stored version (1: attachments are not updated).
    public var version: Int64

    /// Creates a value as a repository returns it.
    public init(
        id: UUID, sessionID: UUID, fileName: String, mimeType: String, byteCount: Int64,
        sha256: SHA256Digest, createdAt: Date, updatedAt: Date, version: Int64
    ) {
        self.id = id
        self.sessionID = sessionID
        self.fileName = fileName
        self.mimeType = mimeType
        self.byteCount = byteCount
        self.sha256 = sha256
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}
