import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault export`: the JSON document, its round trip through the library's type, and
/// the private output file.
@Suite("CLI export")
struct CLIExportTests {
    let input = CLIHarness.password + "\n"

    /// A vault with José, his sessions, diagnoses, attachment, medication and logs.
    private func makeVault(in directory: TemporaryDirectory) async throws -> (URL, UUID) {
        let folder = directory.file("clinic")
        _ = try await CLIHarness.initVault(folder)
        let id = try await CLIRecordFixtures.addPatient(
            folder, first: "José", last: "García Núñez", born: "1984-03-07", extra: ["--national-id", "12345678Z"])
        try await CLIRecordFixtures.addHistory(folder, patientID: id)
        return (folder, id)
    }

    @Test("export writes JSON that decodes into PatientRecordExport and equals the record read through the library")
    func exportRoundTrips() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let result = try await CLIHarness.run(["export", folder.path, id.uuidString, "--password-stdin"], input: input)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.isEmpty)
            let data = Data(result.standardOutput.utf8)
            // Plain JSON, readable without MedVault.
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object["formatVersion"] as? Int == 1)
            #expect(result.standardOutput.contains("\"dateOfBirth\" : \"1984-03-07\""))
            #expect(result.standardOutput.contains("\"date\" : \"2026-03-02T09:00:00.123Z\""))

            let exported = try PatientRecordExport(jsonData: data)
            let decodedDirectly = try PatientRecordExport.decoder().decode(PatientRecordExport.self, from: data)
            #expect(decodedDirectly == exported)
            let (patient, expected) = try await CLIRecordFixtures.withVault(folder) { vault in
                (try await vault.patients.get(id), try await vault.exportRecord(of: id))
            }
            #expect(exported.patient == patient)
            var sameInstant = expected
            sameInstant.exportedAt = exported.exportedAt
            #expect(exported == sameInstant)
            #expect(exported.sessions.map(\.session.date) == [
                try CLIRecordFixtures.instant("2026-02-02T09:00:00.000Z"),
                try CLIRecordFixtures.instant("2026-03-02T09:00:00.123Z"),
            ], "sessions oldest first, milliseconds kept")
            #expect(exported.sessions.first?.diagnoses.map(\.snapshot.code) == ["6A70"])
            #expect(exported.sessions.first?.attachments.map(\.fileName) == ["informe.pdf"])
            #expect(!result.standardOutput.contains("%PDF"), "attachment content is not exported")
            let medication = try #require(exported.medications.first)
            #expect(medication.schedules.count == 1)
            #expect(medication.doseLogs.map(\.status) == [.taken, .skipped])
            #expect(medication.medication.inventory?.current == MedicationQuantity(29))
        }
    }

    @Test("export --output writes a 0600 file atomically and prints a summary, not the record")
    func exportToPrivateFile() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let output = directory.file("jose.json")
            let result = try await CLIHarness.run(
                ["export", folder.path, String(id.uuidString.prefix(8)), "--output", output.path, "--password-stdin"],
                input: input)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("(mode 0600): 2 sessions, 1 medication."))
            #expect(!result.standardOutput.contains("García"))
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let exported = try PatientRecordExport(jsonData: try Data(contentsOf: output))
            #expect(exported.patient.id == id)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)

            // An existing private file is replaced (and stays 0600).
            try Data("old".utf8).write(to: output)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: output.path)
            let again = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", output.path, "--password-stdin"], input: input)
            #expect(again.status == 0)
            #expect(try PatientRecordExport(jsonData: try Data(contentsOf: output)).patient.id == id)
        }
    }

    @Test("export --output refuses an existing file others may read, before asking for the password (status 5)")
    func exportRefusesExposedFile() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let output = directory.file("shared.json")
            try Data("keep".utf8).write(to: output)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: output.path)
            let result = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", output.path, "--password-stdin"], input: nil)
            #expect(result.status == 5)
            #expect(result.errorLinesWithoutWarnings == [
                "medvault: error: \(output.path): the output exists and other users may access it; remove it or chmod 600 it first",
            ])
            #expect(try Data(contentsOf: output) == Data("keep".utf8), "the file is untouched")
        }
    }

    @Test("export --output refuses a symbolic link, a folder others or its group may write to, and (as root) another user's folder")
    func exportRefusesUnsafePaths() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let target = directory.file("target.json")
            try Data().write(to: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
            let link = directory.file("link.json")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let viaLink = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", link.path, "--password-stdin"], input: input)
            #expect(viaLink.status == 5)
            #expect(viaLink.standardError.contains("not a regular file"))

            let open = directory.file("open")
            try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
            let inOpenFolder = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", open.appendingPathComponent("x.json").path,
                 "--password-stdin"], input: input)
            #expect(inOpenFolder.status == 5)
            #expect(inOpenFolder.standardError.contains("other users may write to the output's folder"))
            #expect(!FileManager.default.fileExists(atPath: open.appendingPathComponent("x.json").path))

            // Writable by its group, without the sticky bit; and (as root) another user's.
            try FileManager.default.setAttributes([.posixPermissions: 0o770], ofItemAtPath: open.path)
            let inGroupFolder = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", open.appendingPathComponent("x.json").path,
                 "--password-stdin"], input: input)
            #expect(inGroupFolder.status == 5, "\(inGroupFolder.standardError)")
            #expect(inGroupFolder.standardError.contains("other users may write to the output's folder"))
            if geteuid() == 0 {
                try FileManager.default.setAttributes([.posixPermissions: 0o700, .ownerAccountID: 65_534],
                                                      ofItemAtPath: open.path)
                let inOthersFolder = try await CLIHarness.run(
                    ["export", folder.path, id.uuidString, "--output", open.appendingPathComponent("x.json").path,
                     "--password-stdin"], input: input)
                #expect(inOthersFolder.status == 5, "\(inOthersFolder.standardError)")
                #expect(inOthersFolder.standardError.contains("belongs to another user"), "\(inOthersFolder.standardError)")
            }
            #expect(!FileManager.default.fileExists(atPath: open.appendingPathComponent("x.json").path))

            let missing = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--output", directory.file("no/such/x.json").path,
                 "--password-stdin"], input: input)
            #expect(missing.status == 4)
        }
    }

    @Test("export of an unknown patient is status 4 and writes nothing")
    func exportUnknownPatient() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, _) = try await makeVault(in: directory)
            let output = directory.file("nobody.json")
            let result = try await CLIHarness.run(
                ["export", folder.path, UUID().uuidString, "--output", output.path, "--password-stdin"], input: input)
            #expect(result.status == 4)
            #expect(result.errorLinesWithoutWarnings.count == 1)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
