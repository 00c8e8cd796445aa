import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// A third party verifies a signed note from the FHIR export alone: an independent script
/// (`Tests/Scripts/verify_session_signature.py`, Python `cryptography`'s Ed25519 and the
/// documented encoding) checks the signature, and refuses it once one byte of the note,
/// or of the signature, changes.
@Suite("FHIR export: a session signature a third party verifies")
struct FHIRSignatureVerificationTests {
    static let verifier = FHIRFixtures.validator.deletingLastPathComponent()
        .appendingPathComponent("verify_session_signature.py")

    struct Report: Decodable {
        let verified: Int
        let failures: [String]
    }

    static func verify(_ file: URL) async throws -> (status: Int32, report: Report?) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", verifier.path, file.path]
        let run = try await process.runCapturingOutput()
        return (run.status, try? JSONDecoder().decode(Report.self, from: run.output))
    }

    /// The bundle at `url` with `change` applied to its resource of `type` whose id is `id`.
    static func rewrite(_ url: URL, to target: URL, type: String, id: String,
                        _ change: (inout [String: Any]) throws -> Void) throws {
        var bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var entries = try #require(bundle["entry"] as? [[String: Any]])
        let index = try #require(entries.firstIndex {
            ($0["resource"] as? [String: Any]).map { $0["resourceType"] as? String == type && $0["id"] as? String == id }
                ?? false
        })
        var resource = try #require(entries[index]["resource"] as? [String: Any])
        try change(&resource)
        entries[index]["resource"] = resource
        bundle["entry"] = entries
        try JSONSerialization.data(withJSONObject: bundle).write(to: target)
    }

    @Test("The exported signature verifies; one byte of the note or of the signature changed: refused")
    func thirdPartyVerifies() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let bundle = dir.file("bundle.json")
            try await vault.exportFHIRBundle(of: patientID, to: bundle)
            let session = try #require(try await vault.sessions.history(of: patientID, after: nil, limit: 50).entries.first { $0.signature != nil })
            await vault.lock()

            let clean = try await Self.verify(bundle)
            #expect(clean.status == 0 && clean.report?.verified == 1, "\(String(describing: clean.report))")

            let notesID = FHIRMapping.derivedID("notes", session.session.id)
            let editedNote = dir.file("note.json")
            try Self.rewrite(bundle, to: editedNote, type: "DocumentReference", id: notesID) { resource in
                var content = try #require(resource["content"] as? [[String: Any]])
                var attachment = try #require(content[0]["attachment"] as? [String: Any])
                var text = Array(Data(base64Encoded: try #require(attachment["data"] as? String))!)
                text[0] ^= 0x01
                attachment["data"] = Data(text).base64EncodedString()
                content[0]["attachment"] = attachment
                resource["content"] = content
            }
            let note = try await Self.verify(editedNote)
            #expect(note.status == 1 && note.report?.verified == 0)

            let provenanceID = FHIRMapping.derivedID("signature", session.session.id)
            let editedSignature = dir.file("signature.json")
            try Self.rewrite(bundle, to: editedSignature, type: "Provenance", id: provenanceID) { resource in
                var signatures = try #require(resource["signature"] as? [[String: Any]])
                var bytes = Array(Data(base64Encoded: try #require(signatures[0]["data"] as? String))!)
                bytes[10] ^= 0x80
                signatures[0]["data"] = Data(bytes).base64EncodedString()
                resource["signature"] = signatures
            }
            let forged = try await Self.verify(editedSignature)
            #expect(forged.status == 1 && forged.report?.verified == 0)
        }
    }
}
