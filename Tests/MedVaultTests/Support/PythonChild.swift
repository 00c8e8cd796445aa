import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test helper written in Python (`Tests/Scripts/<script>`), started as a child whose
/// standard input is a lifeline pipe (every script exits when it closes, so a test process
/// that dies takes it along), and the first line it printed: how it says it is ready.
struct PythonChild {
    let process: TestProcess
    /// The child's standard input: it exits when this closes.
    let lifeline: Pipe
    /// The first line the child printed, without its line break (empty if it printed none).
    let firstLine: String

    /// The folder of the test scripts.
    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts")

    /// Starts `Tests/Scripts/<script>` with `arguments` and waits for its first line.
    init(script: String, arguments: [String] = []) throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scripts.appendingPathComponent(script).path] + arguments
        let output = Pipe(), lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        self.process = process
        self.lifeline = lifeline
        self.firstLine = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Kills the child with SIGKILL, which no inherited signal disposition can ignore, and
    /// waits for it (idempotent).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? lifeline.fileHandleForWriting.close()
    }
}
