import ArgumentParser
import MedVault

/// `medvault rotate-key <vault>`: re-encrypts the database under a new random key.
struct RotateKeyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Re-encrypt the database under a new random database key.",
        discussion: """
            Crash-safe: at every instant the vault opens with the old key or the new one. \
            A progress bar is drawn on standard error when it is a terminal; otherwise only \
            the final line is printed. Passwords and the recovery key keep working.

            Example:
              medvault rotate-key ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let generation = try await withOpenVault { opened in
                let bar = ProgressBar()
                do {
                    try await opened.rotateDatabaseKey { progress in bar.update(progress) }
                    bar.finish()
                } catch {
                    bar.finish()
                    throw error
                }
                return try await opened.info().databaseKeyGeneration
            }
            Output.line("Database key rotated (key generation \(generation)).")
        }
    }
}
