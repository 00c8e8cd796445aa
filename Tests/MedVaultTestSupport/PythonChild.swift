import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test helper written in Python (`Tests/Scripts/<script>`), started as a child whose
/// standard input is a lifeline pipe (every script exits when it closes, so a test process
/// that dies takes it along), and the first line it printed: how it says it is ready.
package struct PythonChild {
    package let process: TestProcess
    /// The child's standard input: it exits when this closes.
    package let lifeline: Pipe
    /// The first line the child printed, without its line break (empty if it printed none).
    package let firstLine: String

    /// The folder of the test scripts.
    package static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts")

    /// Starts `Tests/Scripts/<script>` with `arguments` and waits for its first line.
    ///
    /// The wait polls a non-blocking pipe between `Task.sleep`s: Python's start-up takes
    /// a second or more on a busy machine, and a blocking read would hold one of Swift's
    /// two cooperative threads for all of it (with two such starts at once, every other
    /// test of the suite stalled). Gives up after `timeout` (the child is then killed
    /// and ``firstLine`` is empty).
    package init(script: String, arguments: [String] = [], timeout: Duration = .seconds(120)) async throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scripts.appendingPathComponent(script).path] + arguments
        let output = Pipe(), lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let descriptor = output.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + timeout
        reading: while !line.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            switch count {
            case 0:
                break reading
            case ..<0 where errno == EAGAIN || errno == EINTR:
                if ContinuousClock.now > deadline {
                    kill(process.processIdentifier, SIGKILL)
                    line.removeAll()
                    break reading
                }
                try await Task.sleep(for: .milliseconds(5))
            case ..<0:
                break reading
            default:
                line.append(contentsOf: buffer[..<count])
            }
        }
        self.process = process
        self.lifeline = lifeline
        self.firstLine = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Kills the child with SIGKILL, which no inherited signal disposition can ignore, and
    /// waits for it (idempotent).
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? lifeline.fileHandleForWriting.close()
    }
}
