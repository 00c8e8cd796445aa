import Foundation
import MedVaultTestSupport
import Testing

/// What one run of the `medvault` binary produced.
struct CLIResult: Sendable {
    /// The exit status, or the signal's number when ``killedBySignal``.
    let status: Int32
    /// Whether a signal ended the process (its ``status`` is then the signal's number).
    var killedBySignal = false
    let standardOutput: String
    let standardError: String

    /// The standard error's lines, without empty ones.
    var errorLines: [String] {
        standardError.split(separator: "\n").map(String.init)
    }

    /// The error lines that are not warnings.
    var errorLinesWithoutWarnings: [String] {
        errorLines.filter { !$0.hasPrefix("medvault: warning:") }
    }
}

/// Runs the package's `medvault` executable as a subprocess, with the fast test KDF,
/// standard input from a file (or /dev/null) and outputs captured in files, so nothing
/// can block on a pipe and a hung child is killed after a timeout.
enum CLIHarness {
    static let password = "contraseña segura 1"
    static let otherPassword = "otra contraseña 2"

    /// The built binary.
    static func binary() throws -> String {
        try #require(StorageFixtures.productPath("medvault"), "the medvault executable was not built")
    }

    /// Runs `medvault arguments…` with `input` on standard input (`nil`: /dev/null).
    static func run(
        _ arguments: [String], input: String? = nil, fastKDF: Bool = true, timeoutSeconds: Double = 60,
        environment: [String: String] = [:]
    ) async throws -> CLIResult {
        let command = try start(arguments, input: input, fastKDF: fastKDF, environment: environment)
        return try await command.finish(timeoutSeconds: timeoutSeconds)
    }

    /// Starts `medvault arguments…` and returns at once, so that several commands can
    /// run at the same time; ``RunningCLICommand/finish(timeoutSeconds:)`` awaits it.
    static func start(_ arguments: [String], input: String? = nil, fastKDF: Bool = true,
                      environment: [String: String] = [:]) throws -> RunningCLICommand {
        try RunningCLICommand(arguments: arguments, input: input, fastKDF: fastKDF, environment: environment,
                              binary: try binary())
    }

    /// Creates a vault in `folder` with ``password`` and returns the printed recovery key.
    static func initVault(_ folder: URL, password: String = password) async throws -> String {
        let result = try await run(["init", folder.path, "--password-stdin"], input: password + "\n")
        try #require(result.status == 0, "init failed: \(result.standardError)")
        return try #require(recoveryKey(in: result.standardOutput), "no recovery key in init's output")
    }

    /// The recovery key in a command's output: the boxed line of 8 hyphenated groups of 7.
    static func recoveryKey(in output: String) -> String? {
        for line in output.split(separator: "\n") {
            let content = line.trimmingCharacters(in: CharacterSet(charactersIn: "| "))
            let groups = content.split(separator: "-")
            if groups.count == 8, groups.allSatisfy({ $0.count == 7 && $0.allSatisfy { $0.isNumber || $0.isUppercase } }) {
                return content
            }
        }
        return nil
    }
}

/// A `medvault` subprocess that ``CLIHarness/start(_:input:fastKDF:)`` started: its
/// standard input comes from a file (or /dev/null), its outputs go to files.
final class RunningCLICommand {
    let arguments: [String]
    private let process = TestProcess()
    private let scratch: TemporaryDirectory
    private let handles: [FileHandle]

    fileprivate init(arguments: [String], input: String?, fastKDF: Bool, environment extra: [String: String],
                     binary: String) throws {
        self.arguments = arguments
        scratch = try TemporaryDirectory()
        do {
            let inputURL = scratch.file("stdin")
            try Data((input ?? "").utf8).write(to: inputURL)
            try Data().write(to: scratch.file("stdout"))
            try Data().write(to: scratch.file("stderr"))
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["MEDVAULT_TEST_FAST_KDF"] = fastKDF ? "1" : nil
            environment.merge(extra) { _, new in new }
            process.environment = environment
            let inputHandle = input == nil
                ? try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
                : try FileHandle(forReadingFrom: inputURL)
            let outputHandle = try FileHandle(forWritingTo: scratch.file("stdout"))
            let errorHandle = try FileHandle(forWritingTo: scratch.file("stderr"))
            handles = [inputHandle, outputHandle, errorHandle]
            process.standardInput = inputHandle
            process.standardOutput = outputHandle
            process.standardError = errorHandle
            try process.run()
        } catch {
            scratch.remove()
            throw error
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        for handle in handles { try? handle.close() }
        scratch.remove()
    }

    /// What the command printed on standard output so far.
    var standardOutputSoFar: String {
        String(decoding: (try? Data(contentsOf: scratch.file("stdout"))) ?? Data(), as: UTF8.self)
    }

    /// Whether the command is still running.
    var isRunning: Bool { process.isRunning }

    /// Kills the command with SIGKILL now (if it is still running).
    func sigkill() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the command to exit (killing it after `timeoutSeconds`) and returns
    /// what it printed.
    func finish(timeoutSeconds: Double = 60) async throws -> CLIResult {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                Issue.record("medvault \(arguments.joined(separator: " ")) did not finish in \(timeoutSeconds) s")
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            killedBySignal: process.terminationReason == .uncaughtSignal,
            standardOutput: String(decoding: try Data(contentsOf: scratch.file("stdout")), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: scratch.file("stderr")), as: UTF8.self)
        )
    }
}
