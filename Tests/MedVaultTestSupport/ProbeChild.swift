import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `CrashProbe` child (see Tests/CrashProbe/main.swift): its standard output
/// goes to a file the test reads as it grows (nothing can block on a pipe), its standard
/// input is a pipe the test closes to end `hold`. Killed with SIGKILL when dropped while
/// still running.
package final class ProbeChild {
    package let process = TestProcess()
    private let input = Pipe()
    private let outputURL: URL
    private let output: FileHandle

    /// Starts `CrashProbe <arguments…>`, its standard output in `outputURL`, with
    /// `environment` added to this process's.
    package init(_ arguments: [String], outputURL: URL, environment: [String: String] = [:]) throws {
        let probe = try #require(StorageFixtures.productPath("CrashProbe"), "CrashProbe is built with the tests")
        self.outputURL = outputURL
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        output = try FileHandle(forWritingTo: outputURL)
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? input.fileHandleForWriting.close()
        try? output.close()
    }

    /// The whole lines the child printed so far (a line cut by a kill is left out).
    package var lines: [String] {
        let text = String(decoding: StorageFixtures.bytes(outputURL) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Waits until the child printed at least `count` whole lines.
    ///
    /// - Returns: `false` when it did not within `timeoutSeconds` or exited first.
    package func waitForLines(_ count: Int, timeoutSeconds: Double = 30) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while lines.count < count {
            guard process.isRunning, Date() < deadline else { return lines.count >= count }
            try await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// Writes `line` and a newline to the child's standard input. Only while the child
    /// runs and reads it (a write to a pipe nobody reads any more raises SIGPIPE).
    package func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the child's standard input (`hold` then locks its vault and exits).
    package func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Kills the child with SIGKILL now.
    package func sigkill() {
        _ = kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to exit; kills it after `timeoutSeconds`.
    package func waitForExit(timeoutSeconds: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            if Date() > deadline {
                Issue.record("CrashProbe \(process.arguments ?? []) did not exit in \(timeoutSeconds) s")
                sigkill()
                break
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        process.waitUntilExit()
    }
}
