import ArgumentParser
import Foundation
import MedVault

/// `medvault import <vault> <file>`: imports patient records exported by MedVault.
struct ImportCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import patient records from a MedVault export (JSON).",
        discussion: """
            The file holds one patient's record (`medvault export`) or a JSON array of them. \
            Every record keeps its identifier, timestamps, version and deactivation. All or \
            nothing: a record already in the vault, a record listed twice or damaged input is \
            refused and nothing is written. Attachments are not imported (an export holds \
            their metadata, not their content); their number is reported.

            Example:
              medvault import ./new-clinic jose.json

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The JSON file to import.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError(status: ExitCodes.notFound, message: "\(file): the file cannot be read")
            }
            // Refuse damaged input before asking for the password.
            let documents = try PatientRecordExport.documents(jsonData: data)
            let report = try await withOpenVault { opened in try await opened.importRecords(documents) }
            Output.line("Imported \(report.patients) patient\(report.patients == 1 ? "" : "s"): "
                        + "\(report.sessions) sessions, \(report.diagnoses) diagnoses, \(report.medications) medications, "
                        + "\(report.schedules) schedules, \(report.doseLogs) dose logs, \(report.attachments) attachments.")
            if report.attachmentsSkipped > 0 {
                Output.warning("\(report.attachmentsSkipped) attachments were not imported: the export holds no attachment "
                               + "content (export with --attachments)")
            }
        }
    }
}
