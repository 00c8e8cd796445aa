import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault sessions show|sign|amend`: the original, its signature and its addenda.
@Suite("CLI sessions")
struct CLISessionsTests {
    let input = CLIHarness.password + "\n"

    @Test("sign, amend and show: the original content, the signature that verifies, the addenda in order; patients show lists them")
    func signAmendShow() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let patientID = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García", born: "1984-03-07")
            let session = try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.professional.save(SigningConformanceTests.professional)
                return try await vault.sessions.create(ClinicalSession(
                    patientID: patientID, date: try CLIRecordFixtures.instant("2026-02-02T09:00:00.000Z"),
                    notes: "Notas originales", chiefComplaint: "Ánimo bajo"))
            }
            let id = session.id.uuidString
            let textFile = directory.file("addendum.txt")

            // An unsigned session takes no addendum: refused, with no clinical text in the message.
            try Data("Texto ZZMARKERZZ".utf8).write(to: textFile)
            let early = try await CLIHarness.run(["sessions", "amend", folder.path, id, "--reason", "Corrección",
                                                  "--text-file", textFile.path, "--password-stdin"], input: input)
            #expect(early.status == 7)
            #expect(!early.standardError.contains("ZZMARKERZZ"))

            let signed = try await CLIHarness.run(["sessions", "sign", folder.path, id, "--password-stdin"], input: input)
            #expect(signed.status == 0, "\(signed.standardError)")

            // A missing text file is "not found" (4), with the cause; bytes that are not
            // UTF-8 are invalid input (7).
            let missing = try await CLIHarness.run(["sessions", "amend", folder.path, id, "--reason", "Corrección",
                                                    "--text-file", directory.file("absent.txt").path, "--password-stdin"],
                                                   input: input)
            #expect(missing.status == 4, "\(missing.standardError)")
            #expect(missing.standardError.contains("no such text file"))
            let binary = directory.file("binary.txt")
            try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: binary)
            let notText = try await CLIHarness.run(["sessions", "amend", folder.path, id, "--reason", "Corrección",
                                                    "--text-file", binary.path, "--password-stdin"], input: input)
            #expect(notText.status == 7, "\(notText.standardError)")
            #expect(notText.standardError.contains("not UTF-8"))
            let signature = try #require(try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.sessions.entry(session.id).signature
            })
            #expect(signed.standardOutput.contains(signature.contentSHA256.hex))
            let again = try await CLIHarness.run(["sessions", "sign", folder.path, id, "--password-stdin"], input: input)
            #expect(again.status != 0)

            for (reason, text) in [("Corrección", "Primera adenda"), ("Entrada tardía", "Segunda adenda")] {
                try Data(text.utf8).write(to: textFile)
                let amended = try await CLIHarness.run(["sessions", "amend", folder.path, id, "--reason", reason,
                                                        "--text-file", textFile.path, "--password-stdin"], input: input)
                #expect(amended.status == 0, "\(amended.standardError)")
            }

            let shown = try await CLIHarness.run(["sessions", "show", folder.path, id, "--password-stdin"], input: input)
            #expect(shown.status == 0, "\(shown.standardError)")
            let out = shown.standardOutput
            #expect(out.contains("Notas originales"))
            #expect(out.contains("Signed by Dra. Ana Ruiz (license M-12345)"))
            #expect(out.contains("verified"))
            #expect(out.contains("SHA-256 \(signature.contentSHA256.hex)"))
            let first = try #require(out.range(of: "Addendum 1,"))
            let second = try #require(out.range(of: "Addendum 2,"))
            #expect(first.lowerBound < second.lowerBound)
            #expect(out.contains("Primera adenda") && out.contains("Segunda adenda"))
            #expect(try #require(out.range(of: "Primera adenda")).lowerBound < second.lowerBound)

            let patient = try await CLIHarness.run(["patients", "show", folder.path, patientID.uuidString,
                                                    "--password-stdin"], input: input)
            #expect(patient.standardOutput.contains("Signed by Dra. Ana Ruiz"))
            #expect(patient.standardOutput.contains("Addendum 2,"))
        }
    }

    @Test("sessions add stores the JSON session for the patient; bad documents are status 7 naming the key, an unknown patient status 4; nothing is stored")
    func addFromJSON() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let patientID = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García", born: "1984-03-07")
            func add(_ json: String, patient: String = patientID.uuidString) async throws -> CLIResult {
                let file = directory.file("session.json")
                try Data(json.utf8).write(to: file)
                return try await CLIHarness.run(["sessions", "add", folder.path, patient, "--json", file.path, "--password-stdin"],
                                                input: input)
            }
            let refused: [(String, String)] = [
                (#"{"date": "2026-11-20T10:00:00Z", "mood": "sad"}"#, "unknown field \"mood\""),
                (#"{"status": "completed"}"#, "date: is required"),
                (#"{"date": "20/11/2026"}"#, "date: is not an ISO-8601 instant"),
                (#"{"date": "2026-11-20T10:00:00Z", "durationMinutes": 50.5}"#, "durationMinutes: has a value of the wrong kind"),
                (#"{"date": "2026-11-20T10:00:00Z", "durationMinutes": true}"#, "durationMinutes: has a value of the wrong kind"),
                (#"{"date": "2026-11-20T10:00:00Z", "notes": 7}"#, "notes: has a value of the wrong kind"),
                (#"{"date": "2026-11-20T10:00:00Z", "notes": "sad\u001b[31m"}"#, "notes: must not contain"),
                (#"[1]"#, "must be one object"),
                (#"{"date": "2026-11-20T10:00:00Z", "notes": "sad", "notes": "other"}"#, "the field \"notes\" twice"),
            ]
            for (json, message) in refused {
                let result = try await add(json)
                #expect(result.status == 7, "\(json): \(result.standardError)")
                #expect(result.standardError.contains(message), "\(json): \(result.standardError)")
                #expect(!result.standardError.contains("sad"), "\(json): the error shows a value")
            }
            let unknown = try await add(#"{"date": "2026-11-20T10:00:00Z"}"#, patient: UUID().uuidString)
            #expect(unknown.status == 4, "\(unknown.standardError)")
            #expect(try await CLIRecordFixtures.withVault(folder) { try await $0.sessions.count() } == 0)

            let added = try await add(#"""
                {"date": "2026-11-20T10:00:00.250Z", "type": "video", "durationMinutes": 45, "status": "completed",
                 "chiefComplaint": "Insomnio", "notes": "Primera sesión.", "treatmentPlan": null}
                """#, patient: String(patientID.uuidString.lowercased().prefix(8)))
            #expect(added.status == 0, "\(added.standardError)")
            let id = try #require(UUID(uuidString: added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            let stored = try await CLIRecordFixtures.withVault(folder) { try await $0.sessions.get(id) }
            #expect(stored.patientID == patientID && stored.type == .video && stored.durationMinutes == 45)
            #expect(stored.status == .completed && stored.notes == "Primera sesión." && stored.chiefComplaint == "Insomnio")
            #expect(stored.treatmentPlan == nil)
            #expect(stored.date == (try CLIRecordFixtures.instant("2026-11-20T10:00:00.250Z")))
        }
    }
}
