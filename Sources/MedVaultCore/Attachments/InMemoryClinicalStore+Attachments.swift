import Foundation

extension InMemoryClinicalStore {
    /// Checks what can be checked before the content is read.
    func checkNewAttachment(_ attachment: NewAttachment) throws {
        try attachment.validate()
        guard sessions[attachment.sessionID] != nil else { throw Self.notFound("sessionID") }
        guard attachments[attachment.id] == nil else { throw Self.duplicate }
    }

    func insertAttachment(
        _ attachment: NewAttachment, chunks: [Data], byteCount: Int64, digest: SHA256Digest
    ) throws -> Attachment {
        try checkNewAttachment(attachment)
        let now = clock.now()
        let value = Attachment(
            id: attachment.id, sessionID: attachment.sessionID, fileName: attachment.fileName,
            mimeType: attachment.mimeType, byteCount: byteCount, sha256: digest,
            createdAt: now, updatedAt: now, version: 1)
        attachments[value.id] = value
        attachmentChunks[value.id] = chunks
        attachmentIDsBySession[value.sessionID, default: []].insert(value.id)
        return value
    }

    func getAttachment(_ id: UUID) throws -> Attachment {
        guard let attachment = attachments[id] else { throw Self.notFound() }
        return attachment
    }

    func listAttachments(sessionID: UUID) throws -> [Attachment] {
        guard sessions[sessionID] != nil else { throw Self.notFound("sessionID") }
        return attachmentIDsBySession[sessionID, default: []].compactMap { attachments[$0] }.sorted {
            ClinicalSession.earlier($0.createdAt.millisecondsSince1970, $0.id,
                                    than: $1.createdAt.millisecondsSince1970, $1.id)
        }
    }

    func attachmentContent(_ id: UUID) throws -> (Attachment, [Data]) {
        guard let attachment = attachments[id], let chunks = attachmentChunks[id] else { throw Self.notFound() }
        return (attachment, chunks)
    }

    func deleteAttachment(_ id: UUID) throws {
        guard let attachment = attachments[id] else { throw Self.notFound() }
        if sessions[attachment.sessionID]?.status == .completed { throw Self.completedStatus }
        attachments[id] = nil
        attachmentChunks[id] = nil
        attachmentIDsBySession[attachment.sessionID]?.remove(id)
    }

    /// Test hook: flips one stored byte, to exercise the corruption check.
    func corruptAttachment(_ id: UUID) {
        guard var chunks = attachmentChunks[id], let index = chunks.firstIndex(where: { !$0.isEmpty }) else { return }
        var chunk = chunks[index]
        chunk[chunk.startIndex] ^= 0xFF
        chunks[index] = chunk
        attachmentChunks[id] = chunks
    }
}
