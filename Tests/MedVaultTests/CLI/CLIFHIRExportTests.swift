import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault export --format fhir`: a patient's Bundle, the vault's NDJSON, validated by
/// the independent validator; usage errors and exposed folders refused.
@Suite("CLI FHIR export")
struct CLIFHIRExportTests {
    let input = CLIHarness.password + "\n"

    @Test("export --format fhir writes a valid Bundle (file 0600 or standard output); --all writes valid NDJSON files")
    func fhirExport() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García", born: "1984-03-07")
            try await CLIRecordFixtures.addHistory(folder, patientID: id)

            let file = directory.file("jose.fhir.json")
            let written = try await CLIHarness.run(["export", folder.path, id.uuidString, "--format", "fhir",
                                                    "--output", file.path, "--password-stdin"], input: input)
            #expect(written.status == 0, "\(written.standardError)")
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
            let bundle = try await FHIRFixtures.validate([file])
            #expect(bundle.status == 0, "\(bundle.errors)")
            #expect(bundle.summary?.resources["Encounter"] == 2)
            #expect(bundle.summary?.resources["MedicationAdministration"] == 2)

            let printed = try await CLIHarness.run(["export", folder.path, String(id.uuidString.prefix(8)), "--format",
                                                    "fhir", "--password-stdin"], input: input)
            #expect(printed.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8))
                                      as? [String: Any])
            #expect(object["resourceType"] as? String == "Bundle")
            #expect(!printed.standardOutput.contains(Data("%PDF-1.4 informe".utf8).base64EncodedString()))
            let inline = try await CLIHarness.run(["export", folder.path, id.uuidString, "--format", "fhir",
                                                   "--attachments", "--password-stdin"], input: input)
            #expect(inline.status == 0, "\(inline.standardError)")
            #expect(inline.standardOutput.contains(Data("%PDF-1.4 informe".utf8).base64EncodedString()))

            let bulk = directory.file("bulk")
            try FileManager.default.createDirectory(at: bulk, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            let all = try await CLIHarness.run(["export", folder.path, "--all", "--format", "fhir", "--output", bulk.path,
                                                "--password-stdin"], input: input)
            #expect(all.status == 0, "\(all.standardError)")
            let files = try FileManager.default.contentsOfDirectory(at: bulk, includingPropertiesForKeys: nil)
            #expect(files.contains { $0.lastPathComponent == "Patient.ndjson" })
            let ndjson = try await FHIRFixtures.validate(files)
            #expect(ndjson.status == 0, "\(ndjson.errors)")
            #expect(ndjson.summary?.resources["Patient"] == 1)
        }
    }

    @Test("Usage errors, an exposed output folder and (as root) another user's folder are refused; nothing is written")
    func refusals() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await CLIRecordFixtures.addPatient(folder, first: "Ana", last: "Ruiz", born: "1980-05-17")
            for arguments in [["--all", "--format", "fhir"], ["--all", "--output", directory.file("x").path],
                              [id.uuidString, "--format", "xml"], [id.uuidString, "--all", "--format", "fhir"], [],
                              ["--all", "--format", "fhir", "--output", directory.file("y").path, "--attachments"]] {
                let result = try await CLIHarness.run(["export", folder.path] + arguments + ["--password-stdin"],
                                                      input: input)
                #expect(result.status == 64, "\(arguments): \(result.standardError)")
            }
            let open = directory.file("open")
            try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o755])
            let exposed = try await CLIHarness.run(["export", folder.path, "--all", "--format", "fhir", "--output",
                                                    open.path, "--password-stdin"], input: input)
            #expect(exposed.status != 0)
            #expect(exposed.standardError.contains(open.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
            if geteuid() == 0 {
                // Private by its mode, but another user's: its owner could read every file.
                try FileManager.default.setAttributes([.posixPermissions: 0o700, .ownerAccountID: 65_534],
                                                      ofItemAtPath: open.path)
                let others = try await CLIHarness.run(["export", folder.path, "--all", "--format", "fhir", "--output",
                                                       open.path, "--password-stdin"], input: input)
                #expect(others.status == 5, "\(others.standardError)")
                #expect(others.standardError.contains("belongs to another user"), "\(others.standardError)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
            }
        }
    }
}
