import Foundation
import Testing

/// The real `medvault-sync-server` executable as a child process, for the tests that kill
/// it or send it signals. Its standard output and error go to files the tests read.
final class ServerProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object, one call
    // at a time (start, then signal or wait); nothing shares it across tasks.
    let process = Process()
    let output: URL
    let errors: URL
    let port: Int

    /// The executable, built with the tests beside the test bundle.
    static func executablePath() throws -> String {
        let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let folder = me.deletingLastPathComponent()
        for candidate in [folder, folder.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("medvault-sync-server").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw TestPostgresError("medvault-sync-server is not built beside \(me.path)")
    }

    /// Starts the server on `port` over `database`, and waits until it listens.
    init(postgres: TestPostgres, database: String, port: Int, extraEnvironment: [String: String] = [:]) async throws {
        self.port = port
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("medvault-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        output = folder.appendingPathComponent("stdout")
        errors = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Self.executablePath())
        var environment = ProcessInfo.processInfo.environment
        environment["PGHOST"] = "127.0.0.1"
        environment["PGPORT"] = "\(postgres.port)"
        environment["PGUSER"] = TestPostgres.superuser
        environment["PGDATABASE"] = database
        environment["PGSSLMODE"] = "disable"
        environment["MEDVAULT_SYNC_PORT"] = "\(port)"
        environment["LOG_LEVEL"] = "debug"
        environment["MEDVAULT_SYNC_METRICS_TOKEN"] = TestServer.metricsToken
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if standardOutput.contains("listening on") { return }
            if !process.isRunning {
                throw TestPostgresError("the server exited (\(process.terminationStatus)): \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGKILL)
        throw TestPostgresError("the server did not listen within 60 s: \(standardError)")
    }

    var standardOutput: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    var client: HTTPTestClient { HTTPTestClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!) }

    /// Sends `signal` and waits for the process to end; returns its exit status, or -1
    /// when it was still running after `limit` (it is then killed: a hung shutdown fails
    /// the test instead of hanging it).
    @discardableResult
    func stop(_ signal: Int32, within limit: Duration = .seconds(30)) async -> Int32 {
        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
                return -1
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: output.deletingLastPathComponent())
    }
}
