import Foundation
import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import Testing

/// An attachment's content through the real server: its chunk envelopes fill pushes up
/// to the server's 8 MiB body limit (never over: a 413 would fail the sync) and pull
/// pages up to its 4 MiB, and the other device reads the exact bytes.
@Suite("Sync engine end to end: attachment contents", .timeLimit(.minutes(4)))
struct SyncAttachmentEndToEndTests {
    @Test("A 9 MiB attachment (144 chunks, ~17 MiB of push JSON) reaches the other device byte for byte; every envelope stored once")
    func largeAttachment() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let patient = try await a.vault.patients.create(Patient(
                firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1980-05-17")))
            let session = try await a.vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: Date(timeIntervalSince1970: 1_750_000_000), type: .video,
                durationMinutes: 45, notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
            // Random bytes, eight a call (a byte a call made 9.4 million getrandom calls).
            var generator = SystemRandomNumberGenerator()
            var content = Data(count: 9 * 1024 * 1024)
            content.withUnsafeMutableBytes { bytes in
                for offset in stride(from: 0, to: bytes.count, by: 8) {
                    bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
                }
            }
            let attachment = try await a.vault.attachments.create(
                NewAttachment(sessionID: session.id, fileName: "scan.bin", mimeType: "application/octet-stream"),
                data: content)
            #expect(try await a.engine.sync().uploaded == 144 + 3)

            let b = try await devices.join(a, transport)
            // Pages stop at 4 MiB of ciphertext, and nothing after the cut slips in: the
            // short metadata envelope after the chunks waits for its own page.
            var cursor: Int64 = 0
            var pages = 0
            while true {
                let page = try await transport.pull(after: cursor, limit: 200, as: try await b.credentials())
                #expect(page.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count } <= 4 << 20)
                #expect(page.envelopes.map(\.sequence) == Array(cursor + 1 ..< cursor + 1 + Int64(page.envelopes.count)),
                        "a page is a run of consecutive sequences")
                pages += 1
                if !page.hasMore || page.envelopes.isEmpty { break }
                cursor = page.lastSequence
            }
            #expect(pages >= 4)
            let pulled = try await b.engine.sync()
            #expect(pulled.errors.isEmpty)
            #expect(pulled.downloaded == 147)
            #expect(try await b.vault.attachments.get(attachment.id) == attachment)
            #expect(try await b.vault.attachments.data(of: attachment.id) == content)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "147")
            #expect(try await server.sql("""
                SELECT count(*) FROM (SELECT envelope_id FROM envelopes GROUP BY envelope_id HAVING count(*) > 1) d
                """) == "0")
            try await expectConverged([a, b], patients: 1)
        } }
    }
}
