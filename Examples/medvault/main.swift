// Entry point of the `medvault` command-line tool; see MedVaultCommand for the
// commands and docs/cli.md for the manual.
import ArgumentParser

/// Runs the command through AsyncParsableCommand's async entry point (top-level code
/// would otherwise pick ParsableCommand's synchronous `main()`).
func runMedVault() async {
    await MedVaultCommand.main()
}

await runMedVault()
