import ArgumentParser
import Foundation
import MedVault

/// `medvault export <vault> <patient-id> [--output file.json]`: a patient's whole record as JSON.
struct ExportCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a patient's complete record as JSON.",
        discussion: """
            The document (PatientRecordExport in the library) holds the patient, every \
            session with its diagnoses and attachments' metadata (not their content), and \
            every medication with its schedules and dose logs. Instants are ISO-8601 UTC \
            with milliseconds; dates are YYYY-MM-DD.

            The record is in CLEAR TEXT. With --output the file is written atomically with \
            mode 0600; medvault refuses an existing file that other users may read, and a \
            folder others may write to without the sticky bit. Without --output it goes to \
            standard output.

            Example:
              medvault export ./clinic 3f2a9c1e --output jose.json

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The patient's identifier, or its first 8 characters.", valueName: "patient-id"))
    var patientID: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the JSON to this file (mode 0600) instead of standard output.",
                                                   valueName: "file"))
    var output: String?

    func run() async throws {
        try await reportingFailures {
            let destination = output.map { URL(fileURLWithPath: $0) }
            if let destination {
                // Refuse an exposed destination before asking for the password.
                try writingOutput { try PrivateFileWriter.check(destination) }
            }
            let export = try await withOpenVault { opened in
                let patient = try await opened.patients.get(idOrPrefix: patientID)
                return try await opened.exportRecord(of: patient.id)
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

    /// Runs a step on the output file; its errors name the output's path, not the vault's.
    private func writingOutput(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as MedVaultError {
            throw CLIError(status: ExitCodes.status(for: error.code), message: "\(output ?? "-"): \(error.reason)")
        }
    }
}
