import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Attachments in SQLCipher: chunk rows, large round trips, corruption detection and
/// the invisibility of incomplete attachments.
@Suite("Attachments (SQLCipher)")
struct ClinicalAttachmentSQLTests {
    typealias F = ClinicalFixtures

    static func setUp(maximum: Int64 = SQLCipherAttachmentRepository.defaultMaximumByteCount) async throws
        -> (TemporaryVaultDatabase, SQLCipherClinicalRecords, ClinicalSession)
    {
        let database = try await TemporaryVaultDatabase.open()
        let records = SQLCipherClinicalRecords(pool: database.pool, clock: SteppingClock().recordClock,
                                               maximumAttachmentByteCount: maximum)
        let patient = try await records.patients.create(F.patient())
        let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
        return (database, records, session)
    }

    static func chunkCount(_ pool: VaultDatabase, _ id: UUID) async throws -> Int64? {
        try await pool.read { db in
            try db.fetchOne("SELECT count(*) FROM attachment_chunk WHERE attachment_id = ?", [id.vaultValue]) {
                $0.int64(at: 0)
            }
        }
    }

    /// About 20 MiB, fed in 1 MiB pieces, read back identical with the recorded digest.
    @Test func twentyMebibytesRoundTrip() async throws {
        let (database, records, session) = try await Self.setUp()
        defer { Task { await database.close() } }
        let content = AttachmentConformanceTests.bytes(count: 20 * 1024 * 1024 + 777, seed: 7)
        let stored = try await records.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "scan.dcm", mimeType: "application/dicom"),
            content: DataChunks(data: content, chunkSize: 1024 * 1024))
        #expect(stored.byteCount == Int64(content.count))
        #expect(stored.sha256 == SHA256Digest.of(content))
        let expectedChunks = (content.count + SQLCipherAttachmentRepository.chunkByteCount - 1)
            / SQLCipherAttachmentRepository.chunkByteCount
        #expect(try await Self.chunkCount(database.pool, stored.id) == Int64(expectedChunks))
        var read = Data()
        var largest = 0
        for try await chunk in try await records.attachments.content(of: stored.id) {
            largest = max(largest, chunk.count)
            read.append(chunk)
        }
        #expect(read == content)
        #expect(largest <= SQLCipherAttachmentRepository.chunkByteCount)
    }

    @Test func aFlippedByteInAStoredChunkIsCorruption() async throws {
        let (database, records, session) = try await Self.setUp()
        defer { Task { await database.close() } }
        let content = AttachmentConformanceTests.bytes(count: 200_000)
        let stored = try await records.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "a.bin", mimeType: "application/octet-stream"),
            data: content)
        try await database.pool.write { db in
            let chunk = try db.fetchOne("SELECT data FROM attachment_chunk WHERE attachment_id = ? AND seq = 1",
                                        [stored.id.vaultValue]) { $0.blob(at: 0) }
            var flipped = try #require(chunk)
            flipped[flipped.startIndex + 10] ^= 0x01
            try db.execute("UPDATE attachment_chunk SET data = ? WHERE attachment_id = ? AND seq = 1",
                           [.blob(flipped), stored.id.vaultValue])
        }
        await expectMedVaultError(.corrupted) { try await records.attachments.data(of: stored.id) }
    }

    @Test func aMissingOrExtraChunkIsCorruption() async throws {
        let (database, records, session) = try await Self.setUp()
        defer { Task { await database.close() } }
        let new = NewAttachment(sessionID: session.id, fileName: "a.bin", mimeType: "application/octet-stream")
        let stored = try await records.attachments.create(new, data: AttachmentConformanceTests.bytes(count: 150_000))
        try await database.pool.write { db in
            try db.execute("DELETE FROM attachment_chunk WHERE attachment_id = ? AND seq = 0",
                           [stored.id.vaultValue])
        }
        await expectMedVaultError(.corrupted) { try await records.attachments.data(of: stored.id) }

        let other = try await records.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "b.bin", mimeType: "application/octet-stream"),
            data: Data("abc".utf8))
        // The seal trigger refuses chunks added to a complete attachment…
        await expectMedVaultError(.immutable) {
            try await database.pool.write { db in
                try db.execute("INSERT INTO attachment_chunk (attachment_id, seq, data) VALUES (?, 9, x'00')",
                               [other.id.vaultValue])
            }
        }
        // …and a chunk grown in place is caught by the size check.
        try await database.pool.write { db in
            try db.execute("UPDATE attachment_chunk SET data = data || x'00' WHERE attachment_id = ?",
                           [other.id.vaultValue])
        }
        await expectMedVaultError(.corrupted) { try await records.attachments.data(of: other.id) }
    }

    /// An interrupted store leaves an incomplete row: invisible, and removable.
    @Test func incompleteAttachmentsAreInvisibleAndRemovable() async throws {
        let (database, records, session) = try await Self.setUp()
        defer { Task { await database.close() } }
        let id = UUID()
        try await database.pool.write { db in
            try db.execute("""
                INSERT INTO attachment (id, session_id, file_name, mime_type, created_at, updated_at, version) \
                VALUES (?, ?, 'partial.bin', 'application/octet-stream', 0, 0, 1)
                """, [id.vaultValue, session.id.vaultValue])
            try db.execute("INSERT INTO attachment_chunk (attachment_id, seq, data) VALUES (?, 0, x'0102')",
                           [id.vaultValue])
        }
        await expectMedVaultError(.notFound) { try await records.attachments.get(id) }
        await expectMedVaultError(.notFound) { try await records.attachments.content(of: id) }
        await expectMedVaultError(.notFound) { try await records.attachments.delete(id) }
        #expect(try await records.attachments.list(sessionID: session.id).isEmpty)
        #expect(try await records.attachments.removeIncompleteAttachments() == 1)
        #expect(try await Self.chunkCount(database.pool, id) == 0)
    }

    /// Past the limit, the rows already appended are removed with the incomplete row.
    @Test func aRejectedLargeAttachmentLeavesNoChunks() async throws {
        let (database, records, session) = try await Self.setUp(maximum: 3 * 1024 * 1024)
        defer { Task { await database.close() } }
        let new = NewAttachment(sessionID: session.id, fileName: "big.bin", mimeType: "application/octet-stream")
        await expectMedVaultError(.validation, field: "content") {
            try await records.attachments.create(new, content: DataChunks(data: Data(count: 3 * 1024 * 1024 + 1),
                                                                          chunkSize: 100_000))
        }
        #expect(try await Self.chunkCount(database.pool, new.id) == 0)
        let rows = try await database.pool.read { db in
            try db.fetchOne("SELECT count(*) FROM attachment") { $0.int64(at: 0) }
        }
        #expect(rows == 0)
    }
}
