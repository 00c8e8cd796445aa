import ArgumentParser
import Foundation
import MedVault

/// `medvault sessions amend <vault> <session-id> --reason … --text-file …`: add an addendum.
struct SessionsAmendCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "amend",
        abstract: "Append an addendum to a signed session, as the vault's professional.",
        discussion: """
            The addendum's text is read from a file (UTF-8), so that clinical text never \
            appears in the process list. Addenda are never edited nor deleted.

            Example:
              medvault sessions amend ./clinic 0c9e4a52-… --reason "Late entry" --text-file note.txt

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @OptionGroup var session: SessionArgument

    @Option(help: ArgumentHelp("Why the addendum is added, one line.", valueName: "reason"))
    var reason: String

    @Option(help: ArgumentHelp("A UTF-8 file holding the addendum's text.", valueName: "path"))
    var textFile: String

    func run() async throws {
        try await reportingFailures {
            guard let id = session.id else { return }
            guard let data = FileManager.default.contents(atPath: textFile) else {
                // The cause decides the status, as for every other input file.
                let exists = FileManager.default.fileExists(atPath: textFile)
                throw CLIError(status: exists ? ExitCodes.accessDenied : ExitCodes.notFound,
                               message: exists ? "\(textFile): the text file cannot be read (permissions, or not a file)"
                                               : "\(textFile): no such text file")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CLIError(status: ExitCodes.invalidInput, message: "\(textFile): the text file is not UTF-8 text")
            }
            let addendum = try await withOpenVault { opened in
                try await opened.sessions.addAddendum(to: id, reason: reason, text: text)
            }
            Output.line("Addendum \(addendum.id.uuidString.lowercased()) added at \(PatientTable.dayAndTime(addendum.createdAt))")
        }
    }
}
