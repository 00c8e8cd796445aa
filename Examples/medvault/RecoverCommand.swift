import ArgumentParser
import MedVault

/// `medvault recover <vault>`: sets a new password with the recovery key.
struct RecoverCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Set a new password with the recovery key, when the password is forgotten.",
        discussion: """
            The old password stops working; the recovery key keeps working. Secrets: the \
            recovery key, then the new password (asked twice on a terminal; two lines with \
            --password-stdin or --password-file). Case, spaces and hyphens in the key do not matter.

            Example:
              medvault recover ./clinic
              printf '%s\\n%s\\n' "$RECOVERY_KEY" "$NEW" | medvault recover ./clinic --password-stdin

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            try requireVault()
            let reader = makeReader()
            let recoveryKey = try reader.recoveryKey()
            let newPassword = try reader.newPassword()
            vault.warnIfFastKDF()
            let opened = try await Vault.resetPassword(at: vault.folder, recoveryKey: recoveryKey,
                                                       newPassword: newPassword, options: vault.options)
            await opened.lock()
            Output.line("Password reset. The recovery key still works; the old password does not.")
        }
    }
}
