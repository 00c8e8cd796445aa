import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// FHIR R4 export: a patient's Bundle and the vault's Bulk Data NDJSON validate with an
/// independent validator (PyPI fhir.resources' R4B models, `Tests/Scripts/fhir_validate.py`),
/// are written as private files, and refuse exposed destinations.
@Suite("FHIR R4 export")
struct FHIRExportTests {
    static func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test("A patient's Bundle validates as FHIR and holds every resource type of the record, written with mode 0600")
    func bundleValidates() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let file = dir.file("jose.fhir.json")
            let export = try await vault.exportFHIRBundle(of: patientID, to: file)
            #expect(try Self.mode(file) == 0o600)
            let result = try await FHIRFixtures.validate([file])
            try #require(result.status != 3, "python3 with fhir.resources is needed: run `make deps`. \(result.errors)")
            #expect(result.status == 0, "\(result.errors)")
            let counts = try #require(result.summary).resources
            #expect(counts["Bundle"] == 1)
            #expect(counts["Patient"] == 1 && counts["Practitioner"] == 1 && counts["Encounter"] == 2)
            #expect(counts["Condition"] == 2 && counts["CarePlan"] == 1)
            #expect(counts["DocumentReference"] == 4, "notes, attachment, two addenda")
            #expect(counts["Provenance"] == 3, "the signature and two addenda")
            #expect(counts["MedicationStatement"] == 1 && counts["MedicationRequest"] == 1)
            #expect(counts["MedicationAdministration"] == 2)
            #expect(export.resources.count == counts.values.reduce(0, +) - 1)
            await vault.lock()
        }
    }

    @Test("The whole vault as Bulk Data NDJSON: one private file per resource type, every line validates")
    func bulkValidates() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, _) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let folder = dir.file("bulk")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            let counts = try await vault.exportFHIRBulk(to: folder)
            #expect(counts["Patient.ndjson"] == 2)
            #expect(counts["Encounter.ndjson"] == 2)
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            #expect(Set(files.map(\.lastPathComponent)) == Set(counts.keys))
            for file in files { #expect(try Self.mode(file) == 0o600) }
            let result = try await FHIRFixtures.validate(files)
            #expect(result.status == 0, "\(result.errors)")
            let validated = try #require(result.summary).resources
            for (name, count) in counts {
                #expect(validated[String(name.dropLast(".ndjson".count))] == count)
            }
            await vault.lock()
        }
    }

    @Test("Exposed or odd destinations are refused before anything is written; an unknown patient is notFound")
    func refusals() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let open = dir.file("open")
            try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o755])
            await expectMedVaultError(.permissionDenied, field: "output") { try await vault.exportFHIRBulk(to: open) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
            let link = dir.file("link")
            let target = dir.file("target")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            await expectMedVaultError(.permissionDenied, field: "output") { try await vault.exportFHIRBulk(to: link) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
            await expectMedVaultError(.fileNotFound, field: "output") {
                try await vault.exportFHIRBulk(to: dir.file("missing"))
            }
            let shared = dir.file("shared.json")
            try Data("old".utf8).write(to: shared)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: shared.path)
            await expectMedVaultError(.permissionDenied, field: "output") {
                try await vault.exportFHIRBundle(of: patientID, to: shared)
            }
            #expect(try Data(contentsOf: shared) == Data("old".utf8))
            await expectMedVaultError(.notFound) { try await vault.exportFHIRBundle(of: UUID(), to: dir.file("x.json")) }
            #expect(!FileManager.default.fileExists(atPath: dir.file("x.json").path))
            await vault.lock()
        }
    }

    @Test("With includingAttachments the attachment's bytes are inline (base64) and the Bundle still validates")
    func attachmentContentInline() async throws {
        try await withTemporaryDirectory { dir in
            let (vault, patientID) = try await FHIRFixtures.richVault(at: dir.file("vault"))
            let file = dir.file("with-content.json")
            let export = try await vault.exportFHIRBundle(of: patientID, to: file, includingAttachments: true)
            let document = try #require(export.resources.first {
                $0["resourceType"] == "DocumentReference" && $0["description"] == "informe.pdf"
            })
            let data = document["content"]?.arrayValue.first?["attachment"]?["data"]?.stringValue
            #expect(data.flatMap { Data(base64Encoded: $0) } == Data("%PDF-1.4 informe".utf8))
            let result = try await FHIRFixtures.validate([file])
            #expect(result.status == 0, "\(result.errors)")
            let metadataOnly = try await vault.fhirExport(of: [patientID])
            #expect(!metadataOnly.resources.contains { $0["content"]?.arrayValue.first?["attachment"]?["data"] != nil
                                                        && $0["description"] == "informe.pdf" })
            await vault.lock()
        }
    }

    @Test("A diagnosis is a Condition coded in ICD-11 MMS: system, code, display, release in version, Spanish title as a translation")
    func conditionCoding() async throws {
        let record = PatientRecordExport.SessionRecord(
            session: ClinicalSession(patientID: UUID(), date: ClinicalFixtures.now),
            diagnoses: [Diagnosis(sessionID: UUID(), snapshot: ClinicalFixtures.snapshot, diagnosedAt: ClinicalFixtures.now)],
            attachments: [])
        let condition = try #require(FHIRMapping.session(record).first { $0["resourceType"] == "Condition" })
        let coding = try #require(condition["code"]?["coding"]?.arrayValue.first)
        #expect(coding["system"] == "http://id.who.int/icd/release/11/mms")
        #expect(coding["code"] == "6A70")
        #expect(coding["display"] == "Single episode depressive disorder")
        #expect(coding["version"] == "2024-01")
        let translation = try #require(coding["_display"]?["extension"]?.arrayValue.first)
        #expect(translation["url"] == "http://hl7.org/fhir/StructureDefinition/translation")
        #expect(translation["extension"]?.arrayValue.map { $0["valueCode"] ?? $0["valueString"] }
                == ["es", "Trastorno depresivo de episodio único"])
    }

    @Test("Serialisation: sorted keys, exact decimals, every control character escaped, one line")
    func serialisation() {
        let value: FHIRJSON = ["b": .number("1.50"), "a": .string("x\"\\\n\u{1}\u{85}\u{2028}é"), "c": [true, false]]
        #expect(value.serialized() == #"{"a":"x\"\\\n\u0001\u0085\u2028é","b":1.50,"c":[true,false]}"#)
    }
}
