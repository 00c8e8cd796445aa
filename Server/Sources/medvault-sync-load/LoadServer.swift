import Foundation

/// The real `medvault-sync-server` executable (built beside this one) as a child
/// process over the run's PostgreSQL, on a free loopback port.
final class LoadServer: Sendable {
    let pid: pid_t
    let port: Int
    let folder: String

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The token the benchmark's server wants on `GET /metrics`; a fresh one per run.
    static let metricsToken = UUID().uuidString + UUID().uuidString

    /// Starts the server and waits until it listens. The per-device rate limit is raised
    /// to `requestsPerSecond`: the run measures the server, not the limiter.
    init(postgres: LoadPostgres, requestsPerSecond: Int) async throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let executable = (me as NSString).deletingLastPathComponent + "/medvault-sync-server"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw LoadError("medvault-sync-server is not built beside \(me)")
        }
        port = try freeLoopbackPort()
        folder = try LoadChild.temporaryFolder("server")
        var environment = ProcessInfo.processInfo.environment
        environment["PGHOST"] = "127.0.0.1"
        environment["PGPORT"] = "\(postgres.port)"
        environment["PGUSER"] = LoadPostgres.superuser
        environment["PGDATABASE"] = LoadPostgres.database
        environment["PGSSLMODE"] = "disable"
        environment["MEDVAULT_SYNC_PORT"] = "\(port)"
        environment["MEDVAULT_SYNC_RATE_PER_SECOND"] = "\(requestsPerSecond)"
        environment["MEDVAULT_SYNC_RATE_BURST"] = "\(requestsPerSecond)"
        environment["LOG_LEVEL"] = "warning"
        environment["MEDVAULT_SYNC_METRICS_TOKEN"] = Self.metricsToken
        pid = try LoadChild.spawn(executable, [], output: folder + "/stdout", errors: folder + "/stderr",
                                  environment: environment)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if standardOutput.contains("listening on") { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw LoadError("the server exited (status \(status)): \(standardError)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        throw LoadError("the server did not listen within 60 s: \(standardError)")
    }

    var standardOutput: String { (try? String(contentsOfFile: folder + "/stdout", encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "" }

    /// SIGTERM, then waits for the process; removes its folder.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: folder)
    }
}
