import Foundation
import MedVaultCore
import Testing

/// The canonical encoding of signed content (version 1) against a known-answer vector
/// computed independently (`Tests/Vectors/session-signature-v1.txt`), and its
/// sensitivity to every signed field.
@Suite("Session signing content")
struct SessionSigningContentTests {
    static let vectorURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/session-signature-v1.txt")

    static func vector() throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try String(contentsOf: vectorURL, encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    static func uuid(_ text: String) -> UUID { UUID(uuidString: text) ?? UUID() }

    static func content() -> SessionSigningContent {
        let session = ClinicalSession(
            id: uuid("8A7F3C2E-1B4D-4E6F-9A0B-1C2D3E4F5A6B"), patientID: uuid("00000000-0000-4000-8000-000000000001"),
            date: Date(), notes: "Duerme 4 h.\nÁnimo bajo — «sin ideación».", chiefComplaint: "Insomnio")
        let snapshot = ICD11Snapshot(code: "6A70", title: "t", titleEs: nil, uri: "u", releaseVersion: "2024-01")
        // Listed out of order: the encoding sorts diagnoses by id.
        let diagnoses = [
            Diagnosis(id: uuid("FFFFFFFF-0000-4000-8000-000000000002"), sessionID: session.id, snapshot: snapshot,
                      clinicalNotes: "Episodio único 😔", diagnosedAt: Date()),
            Diagnosis(id: uuid("0A000000-0000-4000-8000-000000000003"), sessionID: session.id, snapshot: snapshot,
                      diagnosedAt: Date()),
        ]
        return SessionSigningContent(session: session, diagnoses: diagnoses)
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    @Test func encodingMatchesTheKnownAnswerVector() throws {
        let vector = try Self.vector()
        let content = Self.content()
        #expect(Self.hex(content.encoded()) == vector["encoding"])
        #expect(content.sha256.hex == vector["sha256"])
        var reversed = content
        reversed.diagnoses.reverse()
        #expect(reversed.sha256 == content.sha256)
    }

    @Test func everySignedFieldChangesTheDigest() {
        let base = Self.content()
        var variants: [SessionSigningContent] = []
        func variant(_ edit: (inout SessionSigningContent) -> Void) {
            var copy = base
            edit(&copy)
            variants.append(copy)
        }
        variant { $0.session.notes = nil }
        variant { $0.session.chiefComplaint = "Insomnio " }
        variant { $0.session.treatmentPlan = "" }          // present-but-empty differs from absent
        variant { $0.session.id = UUID() }
        variant { $0.session.patientID = UUID() }
        variant { $0.diagnoses[0].clinicalNotes = nil }
        variant { $0.diagnoses[1].clinicalNotes = "" }
        variant { $0.diagnoses.removeLast() }
        variant { $0.diagnoses[1].id = UUID() }
        // Moving text between adjacent fields is not a collision (lengths are encoded).
        variant { $0.session.chiefComplaint = "Insomnio" + ($0.session.notes ?? ""); $0.session.notes = "" }
        let digests = Set(variants.map(\.sha256) + [base.sha256])
        #expect(digests.count == variants.count + 1)
        // Fields the signature does not cover leave it unchanged.
        var unsealed = base
        unsealed.session.status = .completed
        unsealed.session.durationMinutes = 10
        unsealed.diagnoses[0].severity = .mild
        #expect(unsealed.sha256 == base.sha256)
    }
}
