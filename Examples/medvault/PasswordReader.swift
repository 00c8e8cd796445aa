import Foundation
import MedVault

/// Reads the secrets a command needs, in order, from one source: an interactive prompt
/// without echo, a file, or standard input. Secrets are never taken from an argument.
///
/// With a file or standard input, each secret is one line, in the order the command
/// documents (`passwd`: current password, then new password).
final class PasswordReader {
    /// Where the secrets come from.
    enum Source: Equatable {
        /// Prompt on the terminal, echo off.
        case terminal
        /// Lines of this file.
        case file(String)
        /// Lines of standard input.
        case standardInput
    }

    let source: Source
    /// The password file's lines, read on first use; wiped as they are used and on deinit.
    private var fileLines: [[UInt8]]?
    private var linesRead = 0

    /// A reader for `source`.
    init(source: Source) {
        self.source = source
    }

    deinit {
        guard var lines = fileLines else { return }
        fileLines = nil
        for index in lines.indices { LineReader.wipe(&lines[index]) }
    }

    // MARK: - Secrets

    /// Reads the password of an existing vault.
    func password(prompt: String = "Password: ", what: String = "password") throws -> Password {
        var bytes = try nextLine(prompt: prompt, what: what)
        defer { LineReader.wipe(&bytes) }
        return try Password(bytes: bytes)
    }

    /// Reads a new password. On a terminal it is asked twice and both entries must match.
    func newPassword() throws -> Password {
        var first = try nextLine(prompt: "New password: ", what: "new password")
        defer { LineReader.wipe(&first) }
        if source == .terminal {
            var second = try nextLine(prompt: "Repeat the new password: ", what: "new password")
            defer { LineReader.wipe(&second) }
            guard first == second else { throw CLIError.passwordsDiffer }
        }
        return try Password(bytes: first)
    }

    /// Reads a recovery key.
    func recoveryKey() throws -> RecoveryKey {
        var bytes = try nextLine(prompt: "Recovery key: ", what: "recovery key")
        defer { LineReader.wipe(&bytes) }
        return try RecoveryKey(parsing: bytes)
    }

    // MARK: - Lines

    private var sourceName: String {
        switch source {
        case .terminal: "the terminal input"
        case .file: "the password file"
        case .standardInput: "standard input"
        }
    }

    private func nextLine(prompt: String, what: String) throws -> [UInt8] {
        linesRead += 1
        let line: [UInt8]?
        switch source {
        case .terminal:
            guard isatty(STDIN_FILENO) == 1 else { throw CLIError.noPasswordSource }
            line = try TerminalEcho.readLine(prompt: prompt)
        case .standardInput:
            line = try LineReader.readLine(from: STDIN_FILENO)
        case .file(let path):
            let lines = try fileLines ?? Self.readFile(path)
            fileLines = lines
            let index = linesRead - 1
            line = index < lines.count ? lines[index] : nil
        }
        guard let line else { throw CLIError.missingLine(what, line: linesRead, source: sourceName) }
        return line
    }

    /// Reads a password file, warning when other users may read it.
    private static func readFile(_ path: String) throws -> [[UInt8]] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw CLIError(status: ExitCodes.notFound, message: "\(path): no such password file")
            }
            throw CLIError(status: ExitCodes.accessDenied, message: "\(path): cannot open the password file")
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & 0o077 != 0 {
            Output.warning("\(path) is accessible by other users; make it private with chmod 600")
        }
        var contents: [UInt8] = []
        // Room for the largest accepted file up front: growing the array would leave the
        // secrets in the buffers it outgrew, which nobody wipes.
        contents.reserveCapacity(64 * 1024 + 4096)
        defer { LineReader.wipe(&contents) }
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { LineReader.wipe(&chunk) }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(status: ExitCodes.failure, message: "\(path): cannot read the password file")
            }
            if count == 0 { break }
            contents.append(contentsOf: chunk[0..<count])
            guard contents.count <= 64 * 1024 else {
                throw CLIError(status: ExitCodes.invalidInput, message: "\(path): the password file is too large")
            }
        }
        return LineReader.lines(of: contents)
    }
}
