import ArgumentParser
import MedVault

/// `medvault passwd <vault>`: changes the vault's password.
struct PasswdCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the vault's password.",
        discussion: """
            Only the keyring changes (the vault key is re-wrapped), so this takes the same \
            time whatever the vault's size. The recovery key keeps working. Secrets: the \
            current password, then the new one (asked twice on a terminal; two lines with \
            --password-stdin or --password-file).

            Example:
              medvault passwd ./clinic
              printf '%s\\n%s\\n' "$OLD" "$NEW" | medvault passwd ./clinic --password-stdin

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            try requireVault()
            let reader = makeReader()
            let current = try reader.password(prompt: "Current password: ", what: "current password")
            let opened = try await Vault.open(at: vault.folder, password: current, options: vault.options)
            try await Self.lockingAfter(opened) { opened in
                let new = try reader.newPassword()
                vault.warnIfFastKDF()
                try await opened.changePassword(from: current, to: new)
            }
            Output.line("Password changed.")
        }
    }
}
