import ArgumentParser
import MedVault

/// `medvault recovery-key <vault>`: replaces the recovery key.
struct RecoveryKeyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-key",
        abstract: "Replace the recovery key with a new one; the old one stops working.",
        discussion: """
            Use it when the recovery key may have been seen by someone else. The new key \
            is printed once, in a box: store it offline.

            Example:
              medvault recovery-key ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let key = try await withOpenVault { opened in try await opened.regenerateRecoveryKey() }
            Output.line("The recovery key was replaced; the old one no longer opens the vault.")
            Output.line()
            Output.line(Output.recoveryKeyBlock(key, title: "NEW RECOVERY KEY"))
        }
    }
}
