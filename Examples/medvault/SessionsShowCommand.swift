import ArgumentParser
import Foundation
import MedVault

/// `medvault sessions show <vault> <session-id>`: the original, its signature, its addenda.
struct SessionsShowCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a session as signed: its original content, its signature, and its addenda in order.",
        discussion: """
            The signature line says whether the stored content still hashes to the signed \
            SHA-256 ("verified") or not. Times are shown in the local time zone.

            Example:
              medvault sessions show ./clinic 0c9e4a52-…

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @OptionGroup var session: SessionArgument

    func run() async throws {
        try await reportingFailures {
            guard let id = session.id else { return }
            let entry = try await withOpenVault { opened in try await opened.sessions.entry(id) }
            for line in SessionRecordLines.record(entry) { Output.line(line) }
        }
    }
}
