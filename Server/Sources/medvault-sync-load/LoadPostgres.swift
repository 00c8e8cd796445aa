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

    /// Stores `count` envelopes of 640 random-looking bytes, 1,000 in each of `count / 1000`
    /// new vaults with one device each, straight in SQL, then `ANALYZE`: the database of a
    /// server that has been running a long time. One transaction per 100 vaults.
    func storeEnvelopes(_ count: Int) throws {
        let vaults = max(1, count / 1_000)
        for start in stride(from: 0, to: vaults, by: 100) {
            let batch = min(100, vaults - start)
            _ = try psql("""
                WITH v AS (
                    INSERT INTO vaults (vault_id, verification_key, last_sequence, stored_bytes)
                    SELECT gen_random_uuid(), decode(repeat('01', 32), 'hex'), 1000, 1000 * 672
                    FROM generate_series(1, \(batch)) RETURNING vault_id
                ), d AS (
                    INSERT INTO devices (vault_id, device_id, token_hash)
                    SELECT vault_id, gen_random_uuid(), sha256(vault_id::text::bytea) FROM v
                    RETURNING vault_id, device_id
                )
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
                SELECT d.vault_id, n, gen_random_uuid(), sha256((d.vault_id::text || n)::bytea), d.device_id,
                       sha512((n || 'a' || d.vault_id::text)::bytea) || sha512((n || 'b' || d.vault_id::text)::bytea)
                       || sha512((n || 'c' || d.vault_id::text)::bytea) || sha512((n || 'd' || d.vault_id::text)::bytea)
                       || sha512((n || 'e' || d.vault_id::text)::bytea) || sha512((n || 'f' || d.vault_id::text)::bytea)
                       || sha512((n || 'g' || d.vault_id::text)::bytea) || sha512((n || 'h' || d.vault_id::text)::bytea)
                       || sha512((n || 'i' || d.vault_id::text)::bytea) || sha512((n || 'j' || d.vault_id::text)::bytea)
                FROM d, generate_series(1, 1000) n
                """)
        }
        _ = try psql("ANALYZE")
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
