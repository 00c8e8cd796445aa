import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault patients add --json FILE|-`: the record's fields out of the arguments
/// (which `ps` and the shell history show).
@Suite("CLI JSON input for patients add")
struct CLIJSONInputTests {
    static let marker = "QQMARKERQQ"
    let input = CLIHarness.password + "\n"

    static let fullDocument = """
        {"firstName": "José", "lastName": "García Núñez", "dateOfBirth": "1984-03-07", "biologicalSex": "male",
         "nationalId": "12345678Z", "email": "jose@example.org", "phoneNumber": "+34 612 345 678",
         "address": "Calle Mayor 1, Madrid"}
        """

    private func expectStored(_ folder: URL, _ result: CLIResult) async throws {
        #expect(result.status == 0, "\(result.standardError)")
        let id = try #require(UUID(uuidString: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        let stored = try await CLIRecordFixtures.withVault(folder) { vault in try await vault.patients.get(id) }
        #expect(stored.fullName == "José García Núñez")
        #expect(stored.dateOfBirth == (try CalendarDate(iso8601: "1984-03-07")))
        #expect(stored.biologicalSex == .male)
        #expect(stored.nationalId == "12345678Z")
        #expect(stored.email == "jose@example.org")
        #expect(stored.phoneNumber == "+34 612 345 678")
        #expect(stored.address == "Calle Mayor 1, Madrid")
    }

    @Test("--json FILE stores every field of the document")
    func fromFile() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let document = directory.file("patient.json")
            try Data(Self.fullDocument.utf8).write(to: document)
            let result = try await CLIHarness.run(
                ["patients", "add", folder.path, "--json", document.path, "--password-stdin"], input: input)
            try await expectStored(folder, result)
        }
    }

    @Test("--json - with --password-stdin: the password line first, then the document")
    func fromStandardInput() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(
                ["patients", "add", folder.path, "--json", "-", "--password-stdin"], input: input + Self.fullDocument)
            try await expectStored(folder, result)
        }
    }

    @Test("Bad documents are refused with status 7, naming the field and never the value",
          arguments: [
            ("{\"firstName\": \"\(marker)\", ", "not valid JSON"),
            ("[\"\(marker)\"]", "must be one object"),
            ("{\"firstName\": \"\(marker)\", \"lastName\": \"\(marker)\", \"dateOfBirth\": \"1984-03-07\", \"ssn\": \"\(marker)\"}",
             "unknown field \"ssn\""),
            ("{\"firstName\": \"\(marker)\", \"dateOfBirth\": \"1984-03-07\"}", "lastName: is required"),
            ("{\"firstName\": \"Ana\", \"lastName\": \"\(marker)\", \"lastName\": \"R\", \"dateOfBirth\": \"1984-03-07\"}",
             "the field \"lastName\" twice"),
            ("{\"firstName\": \"\(marker)\", \"lastName\": 7, \"dateOfBirth\": \"1984-03-07\"}", "lastName: must be a JSON string"),
            ("{\"firstName\": \"\(marker)\", \"lastName\": \"\(marker)\", \"dateOfBirth\": \"1984-13-07\"}", "dateOfBirth"),
            ("{\"firstName\": \"\(marker)\\u001b[31m\", \"lastName\": \"R\", \"dateOfBirth\": \"1984-03-07\"}", "firstName"),
          ])
    func badDocuments(document: String, expected: String) async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let file = directory.file("patient.json")
            try Data(document.utf8).write(to: file)
            let result = try await CLIHarness.run(
                ["patients", "add", folder.path, "--json", file.path, "--password-stdin"], input: input)
            #expect(result.status == 7, "\(result.standardError)")
            #expect(result.standardError.contains(expected), "\(result.standardError)")
            #expect(!result.standardError.contains(Self.marker))
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test("--json - needs a password source other than the prompt; --json excludes the field options")
    func usageErrors() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let noSource = try await CLIHarness.run(["patients", "add", folder.path, "--json", "-"], input: Self.fullDocument)
            #expect(noSource.status == 64)
            #expect(noSource.standardError.contains("--password-stdin"))
            let mixed = try await CLIHarness.run(
                ["patients", "add", folder.path, "--json", "-", "--first-name", "Ana", "--password-stdin"], input: input)
            #expect(mixed.status == 64)
        }
    }
}
