import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Stored text that would forge a row or restyle the terminal — written raw into the
/// database, as an older vault or another app could have — is printed escaped.
@Suite("CLI output of hostile stored text")
struct CLIHostileOutputTests {
    let input = CLIHarness.password + "\n"

    static let hostileFirst = "Eve\u{1B}[2J\u{1B}]0;owned\u{7}"
    static let hostileLast = "Zz\nffffffff  Forged        VaultRow         1900-01-01  active\u{202E}"

    private func insertHostilePatient(_ folder: URL) async throws -> UUID {
        let id = UUID()
        try await CLIRecordFixtures.withVault(folder) { vault in
            try await vault.database.write { db in
                try db.execute("""
                    INSERT INTO patient(id, first_name, last_name, sort_key, date_of_birth, national_id, email,
                                        address, created_at, updated_at, version)
                    VALUES (?, ?, ?, 'zz', '1980-01-01', ?, ?, ?, 0, 0, 1)
                    """, [id.vaultValue, .text(Self.hostileFirst), .text(Self.hostileLast),
                          .text("X\u{2066}1\u{2069}"), .text("e\u{9B}31m@x.org"), .text("Calle\r\nMayor\u{7F}")])
            }
        }
        return id
    }

    private func expectNoRawHazards(_ output: String, lines expected: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let hazards = output.unicodeScalars.filter { TextSafety.isRefusedInLine($0) && $0 != "\n" }
        #expect(hazards.isEmpty, "raw control or bidi characters printed: \(hazards.map { $0.value })",
                sourceLocation: sourceLocation)
        if let expected {
            #expect(output.split(separator: "\n").count == expected, sourceLocation: sourceLocation)
        }
    }

    @Test("patients list and show escape ESC, line breaks, C1 and bidi characters, one line per row")
    func listAndShowEscape() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await insertHostilePatient(folder)

            let list = try await CLIHarness.run(["patients", "list", folder.path, "--password-stdin"], input: input)
            #expect(list.status == 0, "\(list.standardError)")
            expectNoRawHazards(list.standardOutput, lines: 2)
            #expect(list.standardOutput.contains("Eve\\e[2J\\e]0;owned\\x07"))
            #expect(list.standardOutput.contains("Zz\\nffffffff  Forged"))
            #expect(list.standardOutput.contains("\\u{202E}"))

            let show = try await CLIHarness.run(
                ["patients", "show", folder.path, id.uuidString, "--password-stdin"], input: input)
            #expect(show.status == 0, "\(show.standardError)")
            expectNoRawHazards(show.standardOutput)
            #expect(show.standardOutput.contains("X\\u{2066}1\\u{2069}"))
            #expect(show.standardOutput.contains("Calle\\r\\nMayor\\x7F"))
            #expect(show.standardOutput.contains("e\\x9B31m@x.org"))
        }
    }

    @Test("export to standard output writes hostile characters as JSON \\u escapes: same value, no raw hazard")
    func exportEscapes() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let id = try await insertHostilePatient(folder)
            let export = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--password-stdin"], input: input)
            #expect(export.status == 0, "\(export.standardError)")
            expectNoRawHazards(export.standardOutput)
            let object = try JSONSerialization.jsonObject(with: Data(export.standardOutput.utf8)) as? [String: Any]
            let patient = try #require(object?["patient"] as? [String: Any])
            #expect(patient["firstName"] as? String == Self.hostileFirst)
            #expect(patient["lastName"] as? String == Self.hostileLast)
            #expect(patient["email"] as? String == "e\u{9B}31m@x.org")
        }
    }

    @Test("patients add refuses an ESC in a name with the field's name, not its value")
    func addRefusesHostileName() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(
                ["patients", "add", folder.path, "--first-name", "Eve\u{1B}[31m", "--last-name", "Ruiz",
                 "--birth-date", "1980-01-01", "--password-stdin"], input: input)
            #expect(result.status == 7)
            #expect(result.standardError.contains("firstName"))
            #expect(!result.standardError.contains("Eve"))
        }
    }
}
