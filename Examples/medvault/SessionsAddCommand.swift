import ArgumentParser
import Foundation
import MedVault

/// `medvault sessions add <vault> <patient-id> --json FILE|-`: record a session.
struct SessionsAddCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Record a session for a patient, read from JSON; print its identifier.",
        discussion: """
            The session is read from a JSON file, or from standard input with `--json -` \
            (give the password with --password-stdin, its first line, or --password-file), \
            so that clinical text never appears in arguments. The document is one object: \
            "date" (an ISO-8601 instant such as 2026-11-20T10:00:00Z) is required; "type" \
            (inPerson, video, phone), "durationMinutes" (1–1440, default 50), "status" \
            (scheduled, completed, cancelled; default scheduled), "chiefComplaint", \
            "notes" and "treatmentPlan" are optional. Malformed JSON, an unknown key or a \
            value of the wrong kind is refused with status 7 and the key's name, never \
            its value. The patient may be named by its first 8 characters.

            Example:
              medvault sessions add ./clinic 3f2a9c1e --json session.json

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The patient's identifier, or its first 8 characters.", valueName: "patient-id"))
    var patientID: String

    @Option(help: ArgumentHelp("Read the session from this JSON file, or `-` for standard input.", valueName: "file"))
    var json: String

    func validate() throws {
        try checkPasswordSource(forJSON: json)
    }

    func run() async throws {
        try await reportingFailures {
            let reader = makeReader()
            let password = try passwordPrecedingJSON(json, reader: reader)
            // Read and checked before the vault is opened (and, from a file, before the
            // password is asked for); the patient is known only once it is open.
            let data = try JSONInput.read(json)
            _ = try SessionInput.session(for: UUID(), from: data)
            let stored = try await withOpenVault(reader: reader, password: password) { opened in
                let patient = try await opened.patients.get(idOrPrefix: patientID)
                return try await opened.sessions.create(try SessionInput.session(for: patient.id, from: data))
            }
            Output.line(stored.id.uuidString.lowercased())
        }
    }
}
