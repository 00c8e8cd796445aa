import Foundation
import MedVaultTestSupport
import Testing

/// The walk-through of docs/cli.md, run as it is written: a vault made, a professional
/// set, a patient and a session added, the session signed and amended, the vault
/// exported as FHIR and its audit trail verified — with the CLI alone (issue #34).
@Suite("CLI walk-through of docs/cli.md")
struct CLIWalkThroughTests {
    static let cliDocument = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    /// The first `sh` block after the heading "## A walk-through".
    static func walkThrough() throws -> String {
        let text = try String(contentsOf: cliDocument, encoding: .utf8)
        let section = try #require(text.range(of: "\n## A walk-through\n"), "docs/cli.md has no walk-through")
        let rest = text[section.upperBound...]
        let start = try #require(rest.range(of: "```sh\n"))
        let end = try #require(rest[start.upperBound...].range(of: "\n```"))
        return String(rest[start.upperBound..<end.lowerBound])
    }

    @Test("The walk-through runs end to end: a signed, amended session in the FHIR export, and an intact audit trail")
    func walkThroughRuns() async throws {
        let script = try Self.walkThrough()
        for command in ["init", "professional set", "patients add", "sessions add", "sessions sign", "sessions amend",
                        "export", "audit verify"] {
            #expect(script.contains("medvault \(command) "), "the walk-through no longer shows \(command)")
        }
        try await withTemporaryDirectory { directory in
            let binary = try CLIHarness.binary()
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-e", "-u", "-c", "cd \"$WALK_THROUGH\"\n" + script]
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = URL(fileURLWithPath: binary).deletingLastPathComponent().path + ":"
                + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["MEDVAULT_TEST_FAST_KDF"] = "1"
            environment["WALK_THROUGH"] = directory.url.path
            process.environment = environment
            let run = try await process.runCapturingOutput(mergingErrors: true, timeout: .seconds(240))
            let output = run.outputText
            #expect(run.status == 0, "the walk-through failed: \(output)")
            #expect(output.contains("RECOVERY KEY"), "\(output)")
            #expect(output.contains("Professional created."), "\(output)")
            #expect(output.contains("SHA-256"), "\(output)")
            #expect(output.contains("Addendum "), "\(output)")
            #expect(output.contains("The audit trail is intact"), "\(output)")

            let bulk = directory.file("bulk")
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: bulk.path))
            for name in ["Patient.ndjson", "Encounter.ndjson", "Practitioner.ndjson", "Provenance.ndjson"] {
                #expect(files.contains(name), "\(name) missing from \(files.sorted())")
            }
            // One Provenance for the signature, one for the addendum.
            let provenance = try String(contentsOf: bulk.appendingPathComponent("Provenance.ndjson"), encoding: .utf8)
            #expect(provenance.split(separator: "\n").count == 2, "\(provenance)")
            let patients = try String(contentsOf: bulk.appendingPathComponent("Patient.ndjson"), encoding: .utf8)
            #expect(patients.contains("García Núñez"))
            for name in files {
                let mode = try FileManager.default.attributesOfItem(atPath: bulk.appendingPathComponent(name).path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name) has mode \(String(mode ?? 0, radix: 8))")
            }
        }
    }
}
