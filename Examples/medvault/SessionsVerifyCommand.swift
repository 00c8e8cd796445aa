import ArgumentParser
import Foundation
import MedVault

/// `medvault sessions verify <vault> <session-id>`: whether a signed session's stored
/// content still matches its signature, and whose key signed it.
struct SessionsVerifyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a session's signature: content unchanged, signed with this vault's key for its professional.",
        discussion: """
            Prints the check and exits 0 when the signature verifies under this vault's key, \
            \(ExitCodes.problemsFound) otherwise: the content changed, the signature is under \
            another key (imported from another vault, or forged), it predates professional \
            signing keys, or the session is not signed.

            Example:
              medvault sessions verify ./clinic 0c9e4a52-…

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @OptionGroup var session: SessionArgument

    func run() async throws {
        try await reportingFailures {
            guard let id = session.id else { return }
            let check = try await withOpenVault { opened in try await opened.sessions.verifySignature(of: id) }
            Output.line(SessionRecordLines.description(of: check))
            guard check == .verified else {
                throw CLIError(status: ExitCodes.problemsFound, message: "the signature does not verify as this vault's")
            }
        }
    }
}
