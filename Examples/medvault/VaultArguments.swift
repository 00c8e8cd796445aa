import ArgumentParser
import Foundation
import MedVault

/// The arguments every vault command takes: the vault's folder first, then where the
/// secrets come from.
struct VaultArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The vault's folder.", valueName: "vault"))
    var path: String

    @Option(help: ArgumentHelp("Read the secrets from this file, one per line, instead of prompting.", valueName: "path"))
    var passwordFile: String?

    @Flag(help: "Read the secrets from standard input, one per line, instead of prompting.")
    var passwordStdin = false

    #if DEBUG
    /// Cheap Argon2id parameters for the test suite; hidden, never for real data, and
    /// absent from release builds (so is `MEDVAULT_TEST_FAST_KDF`).
    @Flag(name: .customLong("fast-kdf-for-tests"), help: .hidden)
    var fastKDFForTests = false
    #endif

    func validate() throws {
        if passwordStdin, passwordFile != nil {
            throw ValidationError("use either --password-file or --password-stdin, not both")
        }
        if path.isEmpty {
            throw ValidationError("the vault path must not be empty")
        }
    }

    /// The vault's folder.
    var folder: URL { URL(fileURLWithPath: path) }

    /// Where the secrets come from.
    var secretSource: PasswordReader.Source {
        if let passwordFile { return .file(passwordFile) }
        return passwordStdin ? .standardInput : .terminal
    }

    /// Whether the test-only key derivation was asked for (`--fast-kdf-for-tests` or
    /// `MEDVAULT_TEST_FAST_KDF=1`). Always `false` in a release build: a production vault
    /// can never be made with 8 KiB Argon2 by a stray variable in someone's environment.
    var usesFastKDF: Bool {
        #if DEBUG
        return fastKDFForTests || ProcessInfo.processInfo.environment["MEDVAULT_TEST_FAST_KDF"] == "1"
        #else
        return false
        #endif
    }

    /// The vault options: the recommended Argon2id parameters unless the tests' fast
    /// ones were asked for.
    var options: Vault.Options {
        Vault.Options(kdf: usesFastKDF ? .fastForTestsOnly : .recommended)
    }

    /// Warns, for commands that make a password slot, that the fast parameters are in use.
    func warnIfFastKDF() {
        if usesFastKDF {
            Output.warning("test-only key derivation parameters in use: never use them for real records")
        }
    }
}
