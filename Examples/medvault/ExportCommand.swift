import ArgumentParser
import Foundation
import MedVault

/// `medvault export <vault> <patient-id> [--format json|fhir] [--output file]`: a patient's whole
/// record as JSON or as a FHIR R4 Bundle; `--all --format fhir --output <folder>`: the vault as
/// FHIR Bulk Data NDJSON.
struct ExportCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a patient's complete record as JSON or FHIR R4, or the whole vault as FHIR NDJSON.",
        discussion: """
            The document (PatientRecordExport in the library) holds the patient, every \
            session with its diagnoses and attachments' metadata (their content too with \
            --attachments, so that `medvault import` restores them), and every medication with its schedules and dose logs. Instants are ISO-8601 UTC \
            with milliseconds; dates are YYYY-MM-DD.

            The record is in CLEAR TEXT. With --output the file is written atomically with \
            mode 0600; medvault refuses an existing file that other users may read, a \
            folder others (its group included) may write to without the sticky bit, and a \
            folder of another user. Without --output it goes to standard output.

            --format fhir writes a FHIR R4 Bundle instead (see docs/medico-legal.md for \
            the mapping). With --all --format fhir, --output names an existing private \
            folder of yours (mode 0700) that receives one NDJSON file per resource type (FHIR Bulk \
            Data), each with mode 0600.

            Example:
              medvault export ./clinic 3f2a9c1e --output jose.json
              medvault export ./clinic 3f2a9c1e --format fhir --output jose.fhir.json
              medvault export ./clinic --all --format fhir --output ./bulk

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The patient's identifier, or its first 8 characters.", valueName: "patient-id"))
    var patientID: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the JSON to this file (mode 0600) instead of standard output.",
                                                   valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("json (MedVault's document, the default) or fhir (FHIR R4).", valueName: "format"))
    var format = "json"

    @Flag(help: "Export every patient (with --format fhir and an --output folder).")
    var all = false

    @Flag(help: "For one patient: include attachments' content (base64), so that an import restores them.")
    var attachments = false

    func validate() throws {
        guard ["json", "fhir"].contains(format) else { throw ValidationError("--format must be json or fhir") }
        if all {
            guard patientID == nil else { throw ValidationError("give a patient or --all, not both") }
            guard format == "fhir", output != nil else {
                throw ValidationError("--all needs --format fhir and --output <folder>")
            }
        } else if patientID == nil {
            throw ValidationError("give a patient's identifier, or --all")
        }
        if attachments, all {
            throw ValidationError("--attachments needs one patient")
        }
    }

    func run() async throws {
        try await reportingFailures {
            if all, let output {
                let folder = URL(fileURLWithPath: output)
                let counts = try await withOpenVault { opened in
                    try await writingOutput { try await opened.exportFHIRBulk(to: folder) }
                }
                let total = counts.values.reduce(0, +)
                Output.line("Wrote \(total) FHIR resource\(total == 1 ? "" : "s") in \(counts.count) NDJSON "
                            + "file\(counts.count == 1 ? "" : "s") to \(output) (mode 0600).")
                return
            }
            guard let patientID else { return }
            if format == "fhir" {
                try await exportFHIR(patientID)
                return
            }
            let destination = output.map { URL(fileURLWithPath: $0) }
            if let destination {
                // Refuse an exposed destination before asking for the password.
                try writingOutput { try PrivateFileWriter.check(destination) }
            }
            let export = try await withOpenVault { opened in
                let patient = try await opened.patients.get(idOrPrefix: patientID)
                return try await opened.exportRecord(of: patient.id, includingAttachmentContent: attachments)
            }
            let data = try export.jsonData()
            guard let destination, let output else {
                FileHandle.standardOutput.write(Self.terminalSafe(data))
                return
            }
            try writingOutput { try PrivateFileWriter.write(data, to: destination) }
            let sessions = export.sessions.count
            let medications = export.medications.count
            Output.line("Wrote patient \(PatientTable.shortID(export.patient.id))'s record to \(output) (mode 0600): "
                        + "\(sessions) session\(sessions == 1 ? "" : "s"), "
                        + "\(medications) medication\(medications == 1 ? "" : "s").")
        }
    }

    /// The JSON document with DEL, C1 controls and bidi formatting characters written as
    /// `\uXXXX` escapes: the same JSON value, but safe to show on a terminal. (The
    /// encoder already escapes C0 controls inside strings; outside strings it writes no
    /// control character but the newline, which is kept.)
    static func terminalSafe(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        guard text.unicodeScalars.contains(where: { TextSafety.isRefusedInLine($0) && $0 != "\n" }) else { return data }
        var result = ""
        for scalar in text.unicodeScalars {
            if TextSafety.isRefusedInLine(scalar) && scalar != "\n" {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return Data(result.utf8)
    }

    /// One patient as a FHIR R4 Bundle, to `--output` (mode 0600) or standard output.
    private func exportFHIR(_ patientID: String) async throws {
        let destination = output.map { URL(fileURLWithPath: $0) }
        if let destination { try writingOutput { try PrivateFileWriter.check(destination) } }
        let (export, timestamp) = try await withOpenVault { opened in
            let patient = try await opened.patients.get(idOrPrefix: patientID)
            return (try await opened.fhirExport(of: [patient.id], includingAttachments: attachments),
                    opened.options.clock.now())
        }
        let data = export.bundleData(id: UUID(), timestamp: timestamp)
        guard let destination, let output else {
            FileHandle.standardOutput.write(Self.terminalSafe(data))
            return
        }
        try writingOutput { try PrivateFileWriter.write(data, to: destination) }
        Output.line("Wrote a FHIR R4 Bundle of \(export.resources.count) resources to \(output) (mode 0600).")
    }

    /// Runs a step on the output file; its errors name the output's path, not the vault's.
    private func writingOutput<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as MedVaultError where error.field == "output" {
            throw CLIError(status: ExitCodes.status(for: error.code), message: "\(output ?? "-"): \(error.reason)")
        }
    }

    /// As ``writingOutput(_:)-(()->Value)``, for an asynchronous step.
    private func writingOutput<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as MedVaultError where error.field == "output" {
            throw CLIError(status: ExitCodes.status(for: error.code), message: "\(output ?? "-"): \(error.reason)")
        }
    }
}
