import ArgumentParser
import Foundation
import MedVault

/// `medvault sessions sign <vault> <session-id>`: sign as the vault's professional.
struct SessionsSignCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a session's clinical content as the vault's professional; print its SHA-256.",
        discussion: """
            Signs the session as it is stored now (see `sessions show`). From then on its \
            chief complaint, notes, treatment plan and its diagnoses' clinical notes never \
            change; corrections are addenda (`sessions amend`).

            Example:
              medvault sessions sign ./clinic 0c9e4a52-…

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @OptionGroup var session: SessionArgument

    func run() async throws {
        try await reportingFailures {
            guard let id = session.id else { return }
            let signature = try await withOpenVault { opened in
                let session = try await opened.sessions.get(id)
                return try await opened.sessions.sign(id, version: session.version)
            }
            Output.line("Signed at \(PatientTable.dayAndTime(signature.signedAt)); SHA-256 \(signature.contentSHA256.hex)")
        }
    }
}
