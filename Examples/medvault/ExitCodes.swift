import ArgumentParser
import MedVault

/// The exit statuses of `medvault`, one per class of failure. Stable: scripts may rely on
/// them. The same table is printed by `medvault --help` and documented in docs/cli.md.
enum ExitCodes {
    /// One row of the table: a status, what it means, and the error codes it covers.
    struct Row {
        let status: Int32
        let meaning: String
    }

    /// Success.
    static let success: Int32 = 0
    /// `verify` (or `sessions verify`) ran and found problems.
    static let problemsFound: Int32 = 1
    /// `audit verify` found the audit trail tampered with.
    static let auditTampered: Int32 = 2
    /// The password or the recovery key does not open the vault.
    static let wrongSecret: Int32 = 3
    /// There is no vault at the path, or its keyring is missing.
    static let notFound: Int32 = 4
    /// The vault is locked, or the operating system refused access to a file.
    static let accessDenied: Int32 = 5
    /// The vault's files are damaged, not a MedVault database, or from a newer MedVault.
    static let unreadable: Int32 = 6
    /// An input was refused: an empty password, passwords that differ, a malformed
    /// recovery key, a folder that already holds a vault, missing lines of secrets.
    static let invalidInput: Int32 = 7
    /// Another failure: I/O, disk full, SQLCipher unavailable, cancelled.
    static let failure: Int32 = 8
    /// Another process (or another open `Vault`) is using the vault in a way that
    /// conflicts: it has the vault open while this command needs it alone (rotate-key),
    /// or its key change did not end within the lock timeout. Nothing changed; running
    /// the command again later may succeed.
    static let vaultInUse: Int32 = 9
    /// Bad command-line usage (argument-parser's `EX_USAGE`), including no password
    /// source when standard input is not a terminal.
    static let usage: Int32 = ExitCode.validationFailure.rawValue

    /// The table, in order, for help texts.
    static let table: [Row] = [
        Row(status: success, meaning: "success"),
        Row(status: problemsFound, meaning: "verify or sessions verify found problems"),
        Row(status: auditTampered, meaning: "audit verify found the audit trail tampered with"),
        Row(status: wrongSecret, meaning: "wrong password or recovery key"),
        Row(status: notFound, meaning: "no vault at the path, its keyring is missing, or no record has the id"),
        Row(status: accessDenied, meaning: "vault locked, file permission denied, or an export file others could read"),
        Row(status: unreadable, meaning: "corrupted files, not a MedVault database, or a newer schema"),
        Row(status: invalidInput, meaning: "refused input (invalid field, empty/mismatched password, bad recovery key, vault exists)"),
        Row(status: failure, meaning: "other storage failure (I/O, disk full, cancelled)"),
        Row(status: vaultInUse, meaning: "vault in use by another process; nothing changed, try again later"),
        Row(status: usage, meaning: "usage error (bad arguments, no password source)"),
    ]

    /// The table as help text lines.
    static var helpText: String {
        table.map { row in
            let status = String(row.status)
            return "  " + status + String(repeating: " ", count: max(1, 4 - status.count)) + row.meaning
        }.joined(separator: "\n")
    }

    /// The exit status for a library error.
    static func status(for code: MedVaultError.Code) -> Int32 {
        switch code {
        case .wrongPassword, .wrongRecoveryKey, .wrongKey:
            return wrongSecret
        case .fileNotFound, .notFound:
            return notFound
        case .locked, .permissionDenied:
            return accessDenied
        case .corrupted, .notADatabase, .schemaTooNew:
            return unreadable
        case .validation, .invalidArgument, .duplicate, .conflict, .immutable:
            return invalidInput
        case .vaultInUse:
            return vaultInUse
        default:
            return failure
        }
    }
}
