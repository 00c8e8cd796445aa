import Foundation
@testable import MedVaultCore
import Testing

/// The in-memory attachment store detects content that no longer matches its digest.
@Suite("In-memory attachment integrity")
struct InMemoryAttachmentIntegrityTests {
    @Test func corruptedContentEndsTheStreamWithCorrupted() async throws {
        let records = InMemoryClinicalRecords(clock: .fixed(Date(timeIntervalSince1970: 1_749_981_600)))
        let patient = try await records.patients.create(
            Patient(firstName: "A", lastName: "B", dateOfBirth: try CalendarDate(iso8601: "2000-01-01")))
        let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: .now))
        let stored = try await records.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "a.bin", mimeType: "application/octet-stream"),
            content: DataChunks(data: Data(repeating: 7, count: 200_000), chunkSize: 65_536))
        await records.store.corruptAttachment(stored.id)
        var received = 0
        do {
            for try await chunk in try await records.attachments.content(of: stored.id) {
                received += chunk.count
            }
            Issue.record("a corrupted attachment was read without error")
        } catch let error as MedVaultError {
            #expect(error.code == .corrupted)
        }
        #expect(received == 200_000)
        await #expect(throws: MedVaultError.self) { try await records.attachments.data(of: stored.id) }
    }
}
