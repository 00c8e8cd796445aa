import Foundation

/// CPU seconds each side of the run used between its creation and ``sample()``: this
/// process (the simulated devices and their HTTP client), the sync server, PostgreSQL
/// (postmaster and backends). Where the time goes, on a machine the three share.
struct CPUWatch {
    struct Usage: Sendable {
        var wallSeconds = 0.0
        var devices = 0.0
        var server = 0.0
        var postgres = 0.0
    }

    let server: pid_t
    let postmaster: pid_t?
    private let start: ContinuousClock.Instant
    private let initial: Usage

    init(server: pid_t, postmaster: pid_t?) {
        self.server = server
        self.postmaster = postmaster
        start = .now
        initial = Self.read(server: server, postmaster: postmaster)
    }

    func sample() -> Usage {
        let now = Self.read(server: server, postmaster: postmaster)
        return Usage(wallSeconds: milliseconds(since: start) / 1_000, devices: now.devices - initial.devices,
                     server: now.server - initial.server, postgres: now.postgres - initial.postgres)
    }

    private static func read(server: pid_t, postmaster: pid_t?) -> Usage {
        var usage = Usage()
        usage.devices = LoadChild.cpuSeconds(getpid())
        usage.server = LoadChild.cpuSeconds(server)
        if let postmaster {
            usage.postgres = LoadChild.processTree(postmaster).reduce(0) {
                $0 + LoadChild.cpuSeconds($1, waitedChildren: $1 == postmaster)
            }
        }
        return usage
    }
}
