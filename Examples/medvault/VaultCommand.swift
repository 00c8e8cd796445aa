import ArgumentParser
import MedVault

/// A command that works on one vault. It gives the shared steps — read the secrets,
/// open the vault, act, lock it, and turn failures into one line and an exit status —
/// so each command (and later the `patients` commands) only says what it does.
///
/// For example:
///
/// ```swift
/// struct CountCommand: VaultCommand {
///     @OptionGroup var vault: VaultArguments
///     func run() async throws {
///         try await reportingFailures {
///             try await withOpenVault { vault in print(try await vault.info().recordCounts) }
///         }
///     }
/// }
/// ```
protocol VaultCommand: AsyncParsableCommand {
    /// The vault's path and the secret source.
    var vault: VaultArguments { get }
}

extension VaultCommand {
    /// A reader for the secrets, from the source the arguments chose.
    func makeReader() -> PasswordReader {
        PasswordReader(source: vault.secretSource)
    }

    /// Fails with "no vault" before any secret is asked for, when the path holds none.
    /// With `--json -` the document is on standard input, so the password cannot be
    /// prompted for: a usage error unless it comes from --password-stdin or --password-file.
    func checkPasswordSource(forJSON json: String?) throws {
        if json == "-" && !vault.passwordStdin && vault.passwordFile == nil {
            throw ValidationError("with --json -, give the password with --password-stdin (first line) or --password-file")
        }
    }

    /// With `--json -` and --password-stdin, standard input holds the password line, then
    /// the JSON document: the password, read first (after checking the vault exists).
    func passwordPrecedingJSON(_ json: String?, reader: PasswordReader) throws -> Password? {
        guard json == "-" && vault.passwordStdin else { return nil }
        try requireVault()
        return try reader.password()
    }

    func requireVault() throws {
        guard Vault.exists(at: vault.folder) else {
            throw CLIError(status: ExitCodes.notFound, message: "\(vault.path): there is no vault keyring in this folder")
        }
    }

    /// Reads the password (unless `password` was read already), opens the vault, runs
    /// `body`, and locks the vault, also when `body` fails.
    func withOpenVault<Result>(
        reader: PasswordReader? = nil,
        password: Password? = nil,
        _ body: (Vault) async throws -> Result
    ) async throws -> Result {
        try requireVault()
        let reader = reader ?? makeReader()
        let password = try password ?? reader.password()
        let opened = try await Vault.open(at: vault.folder, password: password, options: vault.options)
        return try await Self.lockingAfter(opened, body)
    }

    /// Runs `body` with `opened` and locks it afterwards, whatever happens.
    static func lockingAfter<Result>(_ opened: Vault, _ body: (Vault) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(opened)
            await opened.lock()
            return result
        } catch {
            await opened.lock()
            throw error
        }
    }

    /// Runs `body`; a failure is printed as one line on standard error and becomes the
    /// exit status of ``ExitCodes``.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as CLIError {
            Output.error(error.message)
            throw ExitCode(error.status)
        } catch let error as MedVaultError {
            Output.error(Output.message(for: error, path: vault.path))
            throw ExitCode(ExitCodes.status(for: error.code))
        } catch is CancellationError {
            Output.error("cancelled")
            throw ExitCode(ExitCodes.failure)
        } catch {
            Output.error("unexpected failure (\(type(of: error)))")
            throw ExitCode(ExitCodes.failure)
        }
    }
}
