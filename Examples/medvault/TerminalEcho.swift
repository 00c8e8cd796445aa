import Foundation

/// Reads a line from the terminal with echo turned off, restoring the terminal's settings
/// afterwards — also when the read fails, and when a signal (Ctrl-C, hang-up, kill)
/// ends the process during the read.
enum TerminalEcho {
    /// The terminal state a signal handler restores. A C signal handler cannot reach an
    /// actor or a lock, so this is plain global state; it is safe because it is written
    /// only while no handler is installed (before `install` and after `uninstall`) and the
    /// handlers only read it.
    private struct Saved {
        var descriptor: Int32 = -1
        var settings = termios()
    }

    nonisolated(unsafe) private static var saved = Saved()

    /// The signals during which echo is restored before the process ends.
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Writes `prompt` to the terminal, then reads one line without echoing it.
    ///
    /// - Returns: The bytes typed, without the line end, or `nil` at end of input (Ctrl-D).
    ///   The caller wipes them.
    /// - Throws: ``CLIError`` when the terminal cannot be read.
    static func readLine(prompt: String) throws -> [UInt8]? {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        let input = terminal >= 0 ? terminal : STDIN_FILENO
        let output = terminal >= 0 ? terminal : STDERR_FILENO
        defer { if terminal >= 0 { close(terminal) } }

        write(output, prompt)
        var original = termios()
        guard tcgetattr(input, &original) == 0 else {
            throw CLIError(status: ExitCodes.failure, message: "cannot read the terminal's settings")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)

        saved = Saved(descriptor: input, settings: original)
        let previous = install()
        defer {
            _ = tcsetattr(input, TCSANOW, &original)
            uninstall(previous)
            saved = Saved()
            write(output, "\n")
        }
        guard tcsetattr(input, TCSAFLUSH, &silent) == 0 else {
            throw CLIError(status: ExitCodes.failure, message: "cannot turn off the terminal's echo")
        }
        return try LineReader.readLine(from: input)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { buffer in
            Foundation.write(descriptor, buffer.baseAddress, buffer.count)
        }
    }

    /// Installs the restoring handler for ``signals``; returns the handlers it replaced.
    private static func install() -> [sighandler_t?] {
        signals.map { signal in
            Foundation.signal(signal) { received in
                var settings = TerminalEcho.saved.settings
                _ = tcsetattr(TerminalEcho.saved.descriptor, TCSANOW, &settings)
                _ = Foundation.signal(received, SIG_DFL)
                _ = raise(received)
            }
        }
    }

    private static func uninstall(_ previous: [sighandler_t?]) {
        for (signal, handler) in zip(signals, previous) {
            _ = Foundation.signal(signal, handler)
        }
    }
}
