import ArgumentParser
import MedVault

/// `medvault init <vault>`: creates a vault and shows its recovery key once.
struct InitCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new vault and show its recovery key once.",
        discussion: """
            Creates the folder (mode 0700) with an empty encrypted database and its keyring. \
            The new password is asked twice on a terminal; with --password-stdin or \
            --password-file it is the first line. The recovery key is printed once, in a box: \
            store it offline, MedVault keeps no copy.

            Example:
              medvault init ./clinic
              printf '%s\\n' "$PASSWORD" | medvault init ./clinic --password-stdin

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let password = try makeReader().newPassword()
            vault.warnIfFastKDF()
            let creation = try await Vault.create(at: vault.folder, password: password, options: vault.options)
            await creation.vault.lock()
            Output.line("Created a vault in \(vault.path).")
            Output.line()
            Output.line(Output.recoveryKeyBlock(creation.recoveryKey, title: "RECOVERY KEY"))
        }
    }
}
