import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
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
        let keys: [String]
        let failures: [String]
    }

    static func verify(_ file: URL, trusting key: Data) async throws -> (status: Int32, report: Report?) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", verifier.path, file.path, "--trusted-key", hex(key)]
        let run = try await process.runCapturingOutput()
        return (run.status, try? JSONDecoder().decode(Report.self, from: run.output))
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

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

    @Test("The exported signature verifies under the trusted key; another key, a stripped signature, one byte of the note, the complaint, a diagnosis note, the patient, the signer or the signature changed: refused")
    func thirdPartyVerifies() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let bundle = dir.file("bundle.json")
            try await vault.exportFHIRBundle(of: patientID, to: bundle)
            let session = try #require(try await vault.sessions.history(of: patientID, after: nil, limit: 50).entries
                .first { $0.signature != nil })
            let key = try #require(session.signature?.signerPublicKey)
            await vault.lock()

            let clean = try await Self.verify(bundle, trusting: key)
            #expect(clean.status == 0 && clean.report?.verified == 1, "\(String(describing: clean.report))")
            #expect(clean.report?.keys == [Self.hex(key)])
            let stranger = try await Self.verify(bundle, trusting: Data(repeating: 7, count: 32))
            #expect(stranger.status == 1 && stranger.report?.verified == 0)

            let sessionID = session.session.id
            let provenanceID = FHIRMapping.derivedID("signature", sessionID)
            let diagnosis = try #require(session.diagnoses.first { $0.clinicalNotes != nil })
            var changed: [(String, URL)] = []
            func variant(_ name: String, type: String, id: String, _ change: (inout [String: Any]) throws -> Void) throws {
                let url = dir.file("\(name).json")
                try Self.rewrite(bundle, to: url, type: type, id: id, change)
                changed.append((name, url))
            }
            try variant("note", type: "DocumentReference", id: FHIRMapping.derivedID("notes", sessionID)) { resource in
                var content = try #require(resource["content"] as? [[String: Any]])
                var attachment = try #require(content[0]["attachment"] as? [String: Any])
                var text = Array(Data(base64Encoded: try #require(attachment["data"] as? String))!)
                text[0] ^= 0x01
                attachment["data"] = Data(text).base64EncodedString()
                content[0]["attachment"] = attachment
                resource["content"] = content
            }
            try variant("complaint", type: "Encounter", id: FHIRMapping.id(sessionID)) { resource in
                resource["reasonCode"] = [["text": "Ansiedad"]]
            }
            try variant("patient", type: "Encounter", id: FHIRMapping.id(sessionID)) { resource in
                resource["subject"] = ["reference": "Patient/\(FHIRMapping.id(UUID()))"]
            }
            try variant("diagnosis", type: "Condition", id: FHIRMapping.id(diagnosis.id)) { resource in
                resource["note"] = [["text": "Episodio grave"]]
            }
            try variant("signer", type: "Provenance", id: provenanceID) { resource in
                var agents = try #require(resource["agent"] as? [[String: Any]])
                var who = try #require(agents[0]["who"] as? [String: Any])
                who["display"] = "Dr. Otro"
                agents[0]["who"] = who
                resource["agent"] = agents
            }
            try variant("when", type: "Provenance", id: provenanceID) { resource in
                var signatures = try #require(resource["signature"] as? [[String: Any]])
                signatures[0]["when"] = "2001-01-01T00:00:00.000Z"
                resource["signature"] = signatures
            }
            try variant("signature-who", type: "Provenance", id: provenanceID) { resource in
                var signatures = try #require(resource["signature"] as? [[String: Any]])
                var who = try #require(signatures[0]["who"] as? [String: Any])
                who["display"] = "Dr. Otro"
                signatures[0]["who"] = who
                resource["signature"] = signatures
            }
            try variant("signature", type: "Provenance", id: provenanceID) { resource in
                var signatures = try #require(resource["signature"] as? [[String: Any]])
                var bytes = Array(Data(base64Encoded: try #require(signatures[0]["data"] as? String))!)
                bytes[10] ^= 0x80
                signatures[0]["data"] = Data(bytes).base64EncodedString()
                resource["signature"] = signatures
            }
            try variant("stripped", type: "Provenance", id: provenanceID) { resource in
                var signatures = try #require(resource["signature"] as? [[String: Any]])
                signatures[0]["extension"] = nil
                resource["signature"] = signatures
            }
            for (name, url) in changed {
                let result = try await Self.verify(url, trusting: key)
                #expect(result.status == 1 && result.report?.verified == 0, "\(name): \(String(describing: result.report))")
            }
        }
    }
}
