import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault patients add|list|search|show`, driven as a subprocess with
/// `--password-stdin` and the fast test KDF.
@Suite("CLI patient commands")
struct CLIPatientCommandTests {
    let input = CLIHarness.password + "\n"

    @Test("patients add prints the new id; the patient is stored with every field given")
    func addStoresPatient() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await CLIRecordFixtures.addPatient(
                folder, first: "José", last: "García Núñez", born: "1984-03-07",
                extra: ["--email", "jose@example.org", "--phone", "+34 612 345 678", "--national-id", "12345678Z"])
            let stored = try await CLIRecordFixtures.withVault(folder) { vault in try await vault.patients.get(id) }
            #expect(stored.fullName == "José García Núñez")
            #expect(stored.dateOfBirth == (try CalendarDate(iso8601: "1984-03-07")))
            #expect(stored.email == "jose@example.org")
            #expect(stored.phoneNumber == "+34 612 345 678")
            #expect(stored.nationalId == "12345678Z")
            #expect(stored.isActive)
        }
    }

    @Test("patients list: an aligned table of active patients by last name; --inactive with dates; --all; --limit")
    func listFilters() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let jose = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García Núñez", born: "1984-03-07")
            let maria = try await CLIRecordFixtures.addPatient(folder, first: "María", last: "Ibáñez Peña", born: "1991-11-23")
            let lucia = try await CLIRecordFixtures.addPatient(folder, first: "Lucía", last: "Muñoz", born: "1978-06-02")
            let deactivated = try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.patients.deactivate(lucia)
            }
            let deactivationDay = CalendarDate(try #require(deactivated.deletedAt), in: .current).iso8601

            let active = try await CLIHarness.run(["patients", "list", folder.path, "--password-stdin"], input: input)
            #expect(active.status == 0)
            let lines = active.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines == [
                "ID        LAST NAME     FIRST NAME  BORN        STATUS",
                "\(String(jose.uuidString.lowercased().prefix(8)))  García Núñez  José        1984-03-07  active",
                "\(String(maria.uuidString.lowercased().prefix(8)))  Ibáñez Peña   María       1991-11-23  active",
            ])

            let inactive = try await CLIHarness.run(["patients", "list", folder.path, "--inactive", "--password-stdin"], input: input)
            #expect(inactive.status == 0)
            #expect(inactive.standardOutput.contains("Muñoz      Lucía       1978-06-02  inactive since \(deactivationDay)"))
            #expect(!inactive.standardOutput.contains("José"))

            let all = try await CLIHarness.run(["patients", "list", folder.path, "--all", "--password-stdin"], input: input)
            #expect(all.standardOutput.split(separator: "\n").count == 4)

            let limited = try await CLIHarness.run(["patients", "list", folder.path, "--all", "--limit", "1", "--password-stdin"], input: input)
            #expect(limited.status == 0)
            #expect(limited.standardOutput.contains("García Núñez"))
            #expect(limited.standardOutput.contains("… 2 more; use --limit 3 to see them all."))
        }
    }

    @Test("patients list on an empty vault says so")
    func listEmpty() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["patients", "list", folder.path, "--password-stdin"], input: input)
            #expect(result.status == 0)
            #expect(result.standardOutput == "No active patients.\n")
        }
    }

    @Test("patients search: \"jose\" finds \"José\", ignoring case and accents; no match says so")
    func searchIgnoresAccents() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            _ = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García Núñez", born: "1984-03-07")
            _ = try await CLIRecordFixtures.addPatient(folder, first: "María", last: "Ibáñez", born: "1991-11-23")
            let found = try await CLIHarness.run(["patients", "search", folder.path, "jose", "--password-stdin"], input: input)
            #expect(found.status == 0)
            #expect(found.standardOutput.contains("García Núñez  José"))
            #expect(!found.standardOutput.contains("María"))
            let byLastName = try await CLIHarness.run(["patients", "search", folder.path, "IBANEZ", "--password-stdin"], input: input)
            #expect(byLastName.standardOutput.contains("María"))
            let none = try await CLIHarness.run(["patients", "search", folder.path, "pedro", "--password-stdin"], input: input)
            #expect(none.status == 0)
            #expect(none.standardOutput == "No matching active patients.\n")
        }
    }

    @Test("patients show: fields and history newest first with diagnoses; an 8-character prefix works")
    func showPrintsHistory() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await CLIRecordFixtures.addPatient(
                folder, first: "José", last: "García Núñez", born: "1984-03-07", extra: ["--email", "jose@example.org"])
            try await CLIRecordFixtures.addHistory(folder, patientID: id)
            let prefix = String(id.uuidString.lowercased().prefix(8))
            let result = try await CLIHarness.run(["patients", "show", folder.path, prefix, "--password-stdin"], input: input)
            #expect(result.status == 0, "\(result.standardError)")
            let output = result.standardOutput
            #expect(output.contains("Patient     \(id.uuidString.lowercased())"))
            #expect(output.contains("Name        José García Núñez"))
            #expect(output.contains("Birth date  1984-03-07"))
            #expect(output.contains("Email       jose@example.org"))
            #expect(output.contains("Status      active"))
            #expect(output.contains("History: 2 sessions, newest first"))
            #expect(output.contains("6A70  Single episode depressive disorder  (principal, moderate)"))
            #expect(output.contains("6B00  Generalised anxiety disorder  (secondary)"))
            #expect(output.contains("Chief complaint: Ánimo bajo"))
            let newer = try #require(output.range(of: "6B00"))
            let older = try #require(output.range(of: "6A70"))
            #expect(newer.lowerBound < older.lowerBound, "the newest session comes first")
        }
    }

    // MARK: - Errors

    @Test("patients add refuses a malformed or future birth date with status 7 naming dateOfBirth, before any password")
    func addRefusesBadBirthDate() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            for date in ["1984-13-01", "07/03/1984", "2999-01-01"] {
                let result = try await CLIHarness.run(
                    ["patients", "add", folder.path, "--first-name", "Ana", "--last-name", "Ruiz", "--birth-date", date,
                     "--password-stdin"], input: nil)
                #expect(result.status == 7, "\(date)")
                #expect(result.errorLinesWithoutWarnings.count == 1)
                #expect(result.errorLinesWithoutWarnings.first?.hasPrefix("medvault: error: dateOfBirth: ") == true)
                #expect(!result.standardError.contains(date), "the value is not echoed")
            }
            let blank = try await CLIHarness.run(
                ["patients", "add", folder.path, "--first-name", "  ", "--last-name", "Ruiz", "--birth-date", "1984-03-07",
                 "--password-stdin"], input: nil)
            #expect(blank.status == 7)
            #expect(blank.errorLinesWithoutWarnings.first?.hasPrefix("medvault: error: firstName: ") == true)
            let count = try await CLIRecordFixtures.withVault(folder) { vault in try await vault.patients.count(filter: .all) }
            #expect(count == 0)
        }
    }

    @Test("an unknown patient id is status 4; a malformed one is status 7 naming id")
    func unknownAndMalformedIDs() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            _ = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García", born: "1984-03-07")
            for id in [UUID().uuidString, "0000ffff"] {
                let result = try await CLIHarness.run(["patients", "show", folder.path, id, "--password-stdin"], input: input)
                #expect(result.status == 4, "\(id)")
                #expect(result.errorLinesWithoutWarnings.count == 1)
                #expect(result.standardOutput.isEmpty)
            }
            let malformed = try await CLIHarness.run(["patients", "show", folder.path, "not-an-id", "--password-stdin"], input: input)
            #expect(malformed.status == 7)
            #expect(malformed.errorLinesWithoutWarnings.first?.hasPrefix("medvault: error: id: ") == true)
        }
    }

    @Test("patients commands on a folder without a vault fail with status 4 before asking for a password")
    func noVault() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await CLIHarness.run(["patients", "list", directory.file("none").path, "--password-stdin"], input: nil)
            #expect(result.status == 4)
        }
    }

    @Test("--inactive and --all together, or --limit 0, are usage errors (64)")
    func usageErrors() async throws {
        for arguments in [["--inactive", "--all"], ["--limit", "0"]] {
            let result = try await CLIHarness.run(["patients", "list", "/nonexistent", "--password-stdin"] + arguments, input: nil)
            #expect(result.status == 64, "\(arguments)")
        }
    }

    @Test("every new command's --help shows an example")
    func helpShowsExamples() async throws {
        for command in [["patients"], ["patients", "add"], ["patients", "list"], ["patients", "search"],
                        ["patients", "show"], ["export"]] {
            let result = try await CLIHarness.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.standardOutput.contains("Example:"), "\(command)")
            #expect(result.standardOutput.contains("medvault " + command.joined(separator: " ")), "\(command)")
        }
    }
}
