import ArgumentParser
import MedVault

/// `medvault verify <vault>`: integrity and cipher checks.
struct VerifyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the vault's integrity, cipher settings and file permissions.",
        discussion: """
            Runs SQLite's integrity and foreign-key checks, checks that SQLCipher is in use \
            with the cipher settings the keyring records, that every page decrypts, that the \
            file's length matches its page count, that the schema is current, that no key \
            rotation is left pending, that the folder and files (the audit checkpoint \
            included) are private to their owner and regular files, and that no \
            -wal/-shm/-journal is a link or a special file. Exits with status 1 when a \
            problem is found, also when the vault is too damaged to open (a damaged \
            database, a removed audit table, a keyring that is a link or a pipe).

            Example:
              medvault verify ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let verification: VaultVerification
            do {
                verification = try await withOpenVault { opened in try await opened.verify() }
            } catch let error as MedVaultError
                        where [.corrupted, .notADatabase].contains(error.code)
                        || (error.code == .storage && error.reason.contains("MedVault refuses")) {
                // (`storage` only for the file-type refusals — a link, a pipe —, not a busy
                // database or an I/O error, which are failures to run, status 8.)
                // The vault's files did not open: a damaged, truncated or extended
                // database, a removed audit table, a keyring or companion that is a link
                // or a special file. A finding of `verify`, not a failure to run it.
                let what = error.code == .storage ? "vault" : "database"
                Output.line("PROBLEM  the \(what) cannot be opened: \(error.reason)")
                throw CLIError(status: ExitCodes.problemsFound, message: "verification found 1 problem")
            }
            for check in verification.checks {
                Output.line("checked  \(check)")
            }
            for problem in verification.problems {
                Output.line("PROBLEM  \(problem)")
            }
            guard verification.isSound else {
                let count = verification.problems.count
                throw CLIError(status: ExitCodes.problemsFound,
                               message: "verification found \(count) problem\(count == 1 ? "" : "s")")
            }
            Output.line("The vault is sound.")
        }
    }
}
