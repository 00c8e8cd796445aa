import Foundation

/// A throwaway PostgreSQL cluster for one load run: `initdb` in a temporary folder,
/// started on a free loopback port, stopped and removed by ``stop()``. As root, the
/// cluster runs as `nobody` (PostgreSQL refuses root).
final class LoadPostgres: Sendable {
    static let superuser = "medvault"
    static let database = "medvault_sync"

    let bin: String
    let directory: String
    let port: Int

    init() throws {
        guard let bin = Self.findBin() else {
            throw LoadError("PostgreSQL's initdb was not found (pg_config --bindir, /usr/lib/postgresql/*/bin): run make deps")
        }
        self.bin = bin
        directory = try LoadChild.temporaryFolder("pg")
        port = try freeLoopbackPort()
        if getuid() == 0 { try LoadChild.run("/bin/chown", ["nobody", directory]) }
        try asPostgresUser(bin + "/initdb", ["-D", directory + "/data", "-U", Self.superuser, "--auth=trust",
                                             "-E", "UTF8", "--no-locale", "-N"])
        // Durable like production (fsync on); the rest of the defaults too.
        try asPostgresUser(bin + "/pg_ctl", [
            "-D", directory + "/data", "-l", directory + "/postgres.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200", "start",
        ])
        try LoadChild.run(bin + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.superuser, Self.database])
    }

    /// The postmaster's process id.
    func postmaster() -> pid_t? {
        let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        return text?.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// `psql -At -c sql` on the run's database.
    func psql(_ sql: String) throws -> String {
        try LoadChild.run(bin + "/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.superuser, "-At",
                                          "-v", "ON_ERROR_STOP=1", "-c", sql, Self.database])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        _ = try? asPostgresUser(bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func asPostgresUser(_ executable: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            try LoadChild.run("/usr/sbin/runuser", ["-u", "nobody", "--", "/bin/sh", "-c", "cd / && exec \"$@\"",
                                                    "sh", executable] + arguments)
        } else {
            try LoadChild.run(executable, arguments)
        }
    }

    private static func findBin() -> String? {
        var candidates: [String] = []
        if let output = try? LoadChild.run("/bin/sh", ["-c", "pg_config --bindir 2>/dev/null"]) {
            candidates.append(output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }
}

/// A port of 127.0.0.1 free right now (bound to port 0, then released).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoadError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard bound == 0, named == 0 else { throw LoadError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}
