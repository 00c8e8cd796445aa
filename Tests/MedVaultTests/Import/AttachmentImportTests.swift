import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Attachments travel through export → import when the export carries their content.
@Suite("Vault: import of attachments with their content")
struct AttachmentImportTests {
    /// Deterministic bytes that are not a repetition of one chunk.
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 / 251) })
    }

    private func vault(at folder: URL) async throws -> Vault {
        try await Vault.create(at: folder, password: try Password(BackupFixtures.password), options: VaultFixtures.options).vault
    }

    /// A patient with a completed session holding three attachments: over two chunks
    /// (150,001 bytes), exactly one chunk, and a tiny one.
    private func source(at folder: URL) async throws -> (Vault, UUID, [MedVaultCore.Attachment]) {
        let vault = try await vault(at: folder)
        let patient = try await vault.patients.create(Patient(
            firstName: "Adjunta", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
        var session = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: Date(millisecondsSince1970: 1_770_000_000_123), notes: "notas"))
        var stored: [MedVaultCore.Attachment] = []
        for (name, count) in [("informe.pdf", 150_001), ("escaner.png", SQLCipherAttachmentRepository.chunkByteCount),
                              ("nota.txt", 7)] {
            stored.append(try await vault.attachments.create(
                NewAttachment(sessionID: session.id, fileName: name, mimeType: "application/octet-stream"),
                data: Self.bytes(count, seed: UInt8(count % 251))))
        }
        session.status = .completed
        _ = try await vault.sessions.update(session)
        return (vault, patient.id, stored)
    }

    private func normalized(_ documents: [PatientRecordExport]) -> [PatientRecordExport] {
        documents.map { var copy = $0; copy.exportedAt = Date(millisecondsSince1970: 0); return copy }
    }

    @Test("Exported with their content, attachments are imported byte for byte with their metadata; without it they are skipped and counted")
    func roundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let (source, patientID, stored) = try await source(at: dir.file("source"))
            let plain = try await source.exportRecord(of: patientID)
            #expect(plain.sessions[0].attachmentContents.isEmpty)
            #expect(!String(decoding: try plain.jsonData(), as: UTF8.self).contains("attachmentContents"),
                    "an export without content is written as before")
            let document = try await source.exportRecord(of: patientID, includingAttachmentContent: true)
            #expect(document.sessions[0].attachmentContents.map(\.attachmentID) == document.sessions[0].attachments.map(\.id))

            let target = try await vault(at: dir.file("target"))
            // Through the JSON form, as the CLI does.
            let decoded = try PatientRecordExport.documents(jsonData: try document.jsonData())
            let report = try await target.importRecords(decoded)
            #expect(report.attachments == 3 && report.attachmentsSkipped == 0)
            for attachment in stored {
                #expect(try await target.attachments.get(attachment.id) == attachment, "metadata field by field")
                #expect(try await target.attachments.data(of: attachment.id) == (try await source.attachments.data(of: attachment.id)))
            }
            let back = try await target.exportAllRecords(includingAttachmentContent: true)
            #expect(normalized(back) == normalized([document]))
            #expect(try await target.verify().problemsBesidesTestKDF == [])
            let logged = try await target.changes(after: nil, limit: 100).entries.filter { $0.table == .attachment }
            #expect(logged.count == 3 && logged.allSatisfy { $0.operation == .insert })

            let other = try await vault(at: dir.file("other"))
            let skipped = try await other.importRecords([plain])
            #expect(skipped.attachments == 0 && skipped.attachmentsSkipped == 3)
            #expect(try await other.attachments.list(sessionID: plain.sessions[0].session.id).isEmpty)
            await source.lock()
            await target.lock()
            await other.lock()
        }
    }

    @Test("Content that does not match its attachment, names none, is listed twice, or an attachment of another session is refused; nothing is written")
    func mismatchedContentIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (source, patientID, _) = try await source(at: dir.file("source"))
            let document = try await source.exportRecord(of: patientID, includingAttachmentContent: true)
            let target = try await vault(at: dir.file("target"))
            func damaged(_ change: (inout PatientRecordExport.SessionRecord) -> Void) -> PatientRecordExport {
                var copy = document
                change(&copy.sessions[0])
                return copy
            }
            let cases: [(String, PatientRecordExport, MedVaultError.Code, String)] = [
                ("a changed byte", damaged { $0.attachmentContents[0].data[1_000] ^= 0x01 }, .validation, "attachmentContents"),
                ("a truncated content", damaged { $0.attachmentContents[2].data.removeLast() }, .validation, "attachmentContents"),
                ("content of no attachment",
                 damaged { $0.attachmentContents.append(.init(attachmentID: UUID(), data: Data([1]))) }, .validation,
                 "attachmentContents"),
                ("content listed twice", damaged { $0.attachmentContents.append($0.attachmentContents[2]) }, .duplicate,
                 "attachmentContents"),
                ("attachment of another session", damaged { $0.attachments[1].sessionID = UUID() }, .validation, "sessionID"),
                ("attachment listed twice", damaged { $0.attachments.append($0.attachments[0]) }, .duplicate, "id"),
                ("a bad file name", damaged { $0.attachments[0].fileName = "" }, .validation, "fileName"),
                ("version 0", damaged { $0.attachments[0].version = 0 }, .validation, "attachments"),
            ]
            for (name, input, code, field) in cases {
                let error = await #expect(throws: MedVaultError.self, "\(name) was imported") {
                    try await target.importRecords([input])
                }
                #expect(error?.code == code && error?.field == field, "\(name): \(String(describing: error))")
            }
            #expect(try await target.info().recordCounts.values.allSatisfy { $0 == 0 })
            let chunks = try await target.database.read { db in
                try db.fetchOne("SELECT count(*) FROM attachment_chunk") { $0.int64(at: 0) }
            }
            #expect(chunks == 0)
            await source.lock()
            await target.lock()
        }
    }
}
