import Foundation

extension PatientRecordExport {
    /// An attachment's content carried in an export document, so that an import
    /// restores the attachment itself and not only its metadata.
    ///
    /// Present only in exports asked for it (`includingAttachmentContent: true`); in
    /// JSON the bytes are Base64 text. An import checks them against the attachment's
    /// listed size and SHA-256 before writing anything.
    public struct AttachmentContent: Sendable, Hashable, Codable {
        /// The attachment (listed in the same session's ``SessionRecord/attachments``).
        public var attachmentID: UUID
        /// The attachment's bytes.
        public var data: Data

        /// Creates an entry.
        public init(attachmentID: UUID, data: Data) {
            self.attachmentID = attachmentID
            self.data = data
        }
    }
}

extension PatientRecordExport.SessionRecord {
    /// The session's attachments that carry their content, each with it, in the order of
    /// ``attachments``. Attachments listed without content are not among them.
    public var attachmentsWithContent: [(attachment: Attachment, data: Data)] {
        let contents = Dictionary(attachmentContents.map { ($0.attachmentID, $0.data) }, uniquingKeysWith: { first, _ in first })
        return attachments.compactMap { attachment in contents[attachment.id].map { (attachment, $0) } }
    }

    /// Checks the session's attachments for an import: each belongs to the session, has
    /// a size and a version a repository could have stored, and each content entry names
    /// a listed attachment once and matches its size and SHA-256.
    func checkAttachments(unique: (UUID, String) throws -> Void) throws {
        var listed: [UUID: Attachment] = [:]
        for attachment in attachments {
            guard attachment.sessionID == session.id else {
                throw MedVaultError(.validation, field: "sessionID", reason: "an attachment is listed under another session")
            }
            guard attachment.byteCount >= 0, attachment.version >= 1, attachment.updatedAt >= attachment.createdAt else {
                throw MedVaultError(.validation, field: "attachments", reason: "an attachment's size, version or stamps are not ones a vault stores")
            }
            try NewAttachment(id: attachment.id, sessionID: attachment.sessionID, fileName: attachment.fileName,
                              mimeType: attachment.mimeType).validate()
            try unique(attachment.id, "attachment")
            listed[attachment.id] = attachment
        }
        var seen = Set<UUID>()
        for content in attachmentContents {
            guard let attachment = listed[content.attachmentID] else {
                throw MedVaultError(.validation, field: "attachmentContents",
                                    reason: "an attachment's content names no attachment of its session")
            }
            guard seen.insert(content.attachmentID).inserted else {
                throw MedVaultError(.duplicate, field: "attachmentContents", reason: "an attachment's content is listed twice")
            }
            var hasher = SHA256Hasher()
            hasher.update(content.data)
            guard Int64(content.data.count) == attachment.byteCount, hasher.finalize() == attachment.sha256 else {
                throw MedVaultError(.validation, field: "attachmentContents",
                                    reason: "an attachment's content does not match its listed size and SHA-256")
            }
        }
    }
}
