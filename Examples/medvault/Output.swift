import Foundation
import MedVault

/// Everything `medvault` prints: results on standard output, warnings and the one-line
/// errors on standard error.
enum Output {
    /// Prints `text` on standard output, each of its lines escaped
    /// (``TextSafety/escaped(_:)``), so that no control or bidi character — from a
    /// name, or an audit row rewritten by someone holding the database key — reaches
    /// the terminal. Escaping is idempotent: text a command already escaped prints
    /// unchanged. A newline inside stored text must be escaped where the line is
    /// built (`text` may hold several lines of the command's own).
    static func line(_ text: String = "") {
        print(escapedLines(text))
    }

    /// `text` with each of its lines escaped (``TextSafety/escaped(_:)``).
    private static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TextSafety.escaped(String($0)) }
            .joined(separator: "\n")
    }

    /// Prints `text` as ``line(_:)`` does, but written through at once (unbuffered, after
    /// whatever `print` buffered): for a secret that must be on the owner's screen or
    /// file before the command goes on, however it then ends.
    ///
    /// When standard output is a regular file, the file is synced too, so the text
    /// outlives a power cut as the keyring written after it would.
    ///
    /// - Throws: The write's or the sync's error (a full disk, a closed pipe): the
    ///   caller must then not go on as if the text had been shown.
    static func lineNow(_ text: String = "") throws {
        fflush(nil)  // every stream: what `print` buffered goes first
        try FileHandle.standardOutput.write(contentsOf: Data((escapedLines(text) + "\n").utf8))
        var status = stat()
        if fstat(STDOUT_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
           fsync(STDOUT_FILENO) != 0, errno != EINVAL {
            throw CLIError(status: ExitCodes.failure, message: "the output file could not be synced; nothing was changed")
        }
    }

    /// Prints `medvault: error: <message>` on standard error, as one line: control and
    /// bidi characters (from a path, say) are escaped.
    static func error(_ message: String) {
        standardError("medvault: error: \(TextSafety.escaped(message))\n")
    }

    /// Prints `medvault: warning: <message>` on standard error, as one line.
    static func warning(_ message: String) {
        standardError("medvault: warning: \(TextSafety.escaped(message))\n")
    }

    /// Writes `text` to standard error, unbuffered.
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal (for the progress bar).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    // MARK: - Errors

    /// The one-line message for a library error. Library errors never carry record data;
    /// the vault's path is added where it helps (file errors).
    static func message(for error: MedVaultError, path: String?) -> String {
        switch error.code {
        case .wrongPassword:
            return "wrong password"
        case .wrongRecoveryKey:
            return "wrong recovery key"
        case .vaultInUse:
            // The reason says what the other process is doing and ends "try again …".
            return "the vault is in use: \(error.reason)"
        case .invalidArgument where error.field == "recoveryKey":
            return "invalid recovery key: \(error.reason)"
        case .fileNotFound, .permissionDenied, .corrupted, .notADatabase, .schemaTooNew, .duplicate, .storage, .diskFull:
            guard let path else { return error.reason }
            return "\(path): \(error.reason)"
        default:
            if let field = error.field { return "\(field): \(error.reason)" }
            return error.reason
        }
    }

    // MARK: - Recovery key

    /// The recovery key in a box, with the warning to keep it offline.
    static func recoveryKeyBlock(_ key: RecoveryKey, title: String) -> String {
        let lines = [
            title,
            "",
            key.formatted,
            "",
            "It opens the vault if the password is forgotten. It is shown",
            "only now: MedVault keeps no copy. Write it down and store it",
            "OFFLINE (paper, a safe). Anyone who holds it can open the vault.",
        ]
        let width = lines.map(\.count).max() ?? 0
        let border = "+" + String(repeating: "-", count: width + 4) + "+"
        var box = [border]
        for line in lines {
            box.append("|  " + line + String(repeating: " ", count: width - line.count) + "  |")
        }
        box.append(border)
        return box.joined(separator: "\n")
    }

    // MARK: - Formatting

    /// A byte count in binary units: `48.0 KiB`.
    static func byteCount(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// Rows of `label  value` with the values aligned.
    static func table(_ rows: [(String, String)], indent: Int = 0) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        let prefix = String(repeating: " ", count: indent)
        return rows.map { label, value in
            prefix + label + String(repeating: " ", count: width - label.count + 2) + value
        }
    }
}
