import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault professional set|show`: a vault made by the CLI gets the professional that
/// `sessions sign` and `sessions amend` need, without another program (issue #34).
@Suite("CLI professional")
struct CLIProfessionalTests {
    let input = CLIHarness.password + "\n"

    @Test("set creates the professional (all three fields required), updates only the fields given, refuses control characters; show prints it; sessions sign then works")
    func setShowAndSign() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)

            let none = try await CLIHarness.run(["professional", "show", folder.path, "--password-stdin"], input: input)
            #expect(none.status == 4, "\(none.standardError)")
            #expect(none.errorLinesWithoutWarnings.first?.contains("no professional yet") == true)

            let partial = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin",
                                                    "--full-name", "Dra. Ana Ruiz"], input: input)
            #expect(partial.status == 7, "\(partial.standardError)")
            #expect(try await CLIRecordFixtures.withVault(folder) { try await $0.professional.get() } == nil)

            let hostile = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin",
                                                    "--full-name", "Ana\u{1B}[31m", "--license", "M-1", "--specialty", "P"],
                                                   input: input)
            #expect(hostile.status == 7, "\(hostile.standardError)")
            #expect(!hostile.standardError.contains("\u{1B}"))

            let created = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin",
                                                    "--full-name", "Dra. Ana Ruiz", "--license", "M-12345",
                                                    "--specialty", "Psicología clínica"], input: input)
            #expect(created.status == 0, "\(created.standardError)")
            #expect(created.standardOutput.contains("Professional created."))

            let updated = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin",
                                                    "--specialty", "Neuropsicología"], input: input)
            #expect(updated.status == 0, "\(updated.standardError)")
            #expect(updated.standardOutput.contains("version 2"))

            let nothing = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin"], input: input)
            #expect(nothing.status == 7, "\(nothing.standardError)")

            let shown = try await CLIHarness.run(["professional", "show", folder.path, "--password-stdin"], input: input)
            #expect(shown.status == 0, "\(shown.standardError)")
            #expect(shown.standardOutput.contains("Dra. Ana Ruiz"))
            #expect(shown.standardOutput.contains("M-12345"))
            #expect(shown.standardOutput.contains("Neuropsicología"))
            #expect(!shown.standardOutput.contains("Psicología clínica"))

            // The professional set by the CLI signs a session.
            let patientID = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García", born: "1984-03-07")
            let session = try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.sessions.create(ClinicalSession(
                    patientID: patientID, date: try CLIRecordFixtures.instant("2026-02-02T09:00:00.000Z"), notes: "Notas"))
            }
            let signed = try await CLIHarness.run(["sessions", "sign", folder.path, session.id.uuidString, "--password-stdin"],
                                                  input: input)
            #expect(signed.status == 0, "\(signed.standardError)")
            let signature = try await CLIRecordFixtures.withVault(folder) { try await $0.sessions.entry(session.id).signature }
            #expect(signature?.professionalName == "Dra. Ana Ruiz")
            #expect(signature?.licenseNumber == "M-12345")
        }
    }

    @Test("set checks the values before the password is read and names the option, not the library's field")
    func setRefusesBeforeThePassword() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let cases: [([String], String)] = [
                (["--email", "not an address"], "--email: is not a valid email address"),
                (["--language", "es_ES!"], "--language: is not a language tag"),
                (["--license", "M-1\u{2028}"], "--license: must not contain"),
                (["--full-name", "  "], "--full-name: must not be blank"),
            ]
            for (options, message) in cases {
                // No password on standard input: a check made after unlocking would fail
                // for the missing password instead.
                let result = try await CLIHarness.run(["professional", "set", folder.path, "--password-stdin"] + options,
                                                      input: "")
                #expect(result.status == 7, "\(options): \(result.standardError)")
                #expect(result.errorLinesWithoutWarnings.first?.hasPrefix("medvault: error: \(message)") == true,
                        "\(options): \(result.standardError)")
            }
        }
    }
}
