/// A failure of the command-line tool itself (not of the library), with its exit status
/// and the one line shown on standard error.
struct CLIError: Error {
    /// The exit status, from ``ExitCodes``.
    let status: Int32
    /// The message, without the `medvault: error: ` prefix. Never contains a secret.
    let message: String

    /// No password source, and standard input is not a terminal to prompt on.
    static let noPasswordSource = CLIError(
        status: ExitCodes.usage,
        message: "no password given and standard input is not a terminal; use --password-stdin or --password-file <path>"
    )

    /// The two entries of a new password differ.
    static let passwordsDiffer = CLIError(status: ExitCodes.invalidInput, message: "the passwords do not match")

    /// The input ended before the secret named `what` (line `line`).
    static func missingLine(_ what: String, line: Int, source: String) -> CLIError {
        CLIError(status: ExitCodes.invalidInput, message: "\(source) ended before the \(what) (line \(line))")
    }
}
