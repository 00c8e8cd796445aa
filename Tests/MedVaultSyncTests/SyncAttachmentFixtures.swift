import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultTestSupport
import Testing

/// Attachments for the sync tests: deterministic contents, a session to hang them on,
/// and readers of what a device holds.
enum SyncAttachmentFixtures {
    /// `count` bytes of a deterministic pseudo-random sequence (`seed` picks it).
    static func content(_ count: Int, seed: UInt64 = 1) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    /// A patient with one scheduled session on `vault`.
    static func session(on vault: Vault, name: String = "Ana") async throws -> ClinicalSession {
        let patient = try await vault.patients.create(ClinicalFixtures.patient(name, "Ruiz"))
        return try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45,
            notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
    }

    /// Stores `content` as an attachment of `session`.
    @discardableResult
    static func attach(_ content: Data, to session: ClinicalSession, on vault: Vault,
                       fileName: String = "scan.bin") async throws -> MedVaultCore.Attachment {
        try await vault.attachments.create(
            NewAttachment(sessionID: session.id, fileName: fileName, mimeType: "application/octet-stream"), data: content)
    }

    /// The whole content of attachment `id` on `vault`, read through the repository.
    static func read(_ id: UUID, on vault: Vault) async throws -> Data {
        var data = Data()
        for try await chunk in try await vault.attachments.content(of: id) { data.append(chunk) }
        return data
    }

    /// How many attachments are incoming on `vault` and how many chunks are staged.
    static func staged(_ vault: Vault) async throws -> (incoming: Int64, chunks: Int64) {
        try await vault.database.read { db in try SyncAttachmentStore.stagedCounts(db) }
    }

    /// How many stored chunk rows attachment `id` has on `vault`.
    static func chunkRows(_ id: UUID, on vault: Vault) async throws -> Int64 {
        try await vault.database.read { db in
            try db.fetchOne("SELECT count(*) FROM attachment_chunk WHERE attachment_id = ?", [id.vaultValue]) {
                $0.int64(at: 0)
            } ?? -1
        }
    }
}

extension AttachmentRepository {
    /// Runs the SQLCipher repository's open-time clean-up of incomplete attachments.
    func removeIncompleteAttachmentsIfSQLCipher() async throws -> Int {
        let repository = try #require(self as? SQLCipherAttachmentRepository)
        return try await repository.removeIncompleteAttachments()
    }
}
