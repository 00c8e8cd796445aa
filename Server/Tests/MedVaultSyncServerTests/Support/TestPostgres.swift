import Foundation
import MedVaultChildProcess
import Testing

/// A real PostgreSQL server for this test process: `initdb` in a temporary folder,
/// `pg_ctl start` on a free port of 127.0.0.1 with its socket in that folder.
///
/// One server serves every suite (each test makes its own database); a test that stops
/// and restarts PostgreSQL makes one of its own (``makePrivate()``). Each is stopped and
/// its folder removed when the process exits (atexit), and, should the process die
/// without exiting (SIGKILL, a crash), by a watchdog shell that polls for it.
///
/// PostgreSQL refuses to run as root: as root (CI), initdb and the server run as
/// `nobody` through `runuser`, with the folder handed to that user.
final class TestPostgres: Sendable {
    /// The user PostgreSQL runs as when the tests run as root.
    static let unprivilegedUser = "nobody"
    /// The database superuser initdb creates.
    static let superuser = "medvault"

    let binDirectory: String
    let directory: String
    let port: Int

    var dataDirectory: String { directory + "/data" }

    /// The shared server, started on first use.
    static let shared: Result<TestPostgres, TestPostgresError> = {
        do { return .success(try TestPostgres()) } catch let error as TestPostgresError { return .failure(error) } catch {
            return .failure(TestPostgresError("\(error)"))
        }
    }()

    /// The shared server; the first call starts it (initdb, pg_ctl: seconds) on a thread
    /// of its own, like every call here that waits for a child process: a blocked thread
    /// of Swift's cooperative pool (2 on a 2-core machine) would stall every other test.
    static func get() async throws -> TestPostgres {
        try await ChildProcess.onOwnThread { try shared.get() }
    }

    private init() throws {
        guard let bin = Self.findBinDirectory() else {
            throw TestPostgresError("PostgreSQL's initdb was not found (pg_config --bindir, /usr/lib/postgresql/*/bin): run make deps")
        }
        binDirectory = bin
        var template = Array("/tmp/medvault-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestPostgresError("mkdtemp failed") }
        directory = String(cString: made)
        port = try Self.freePort()

        if getuid() == 0 {
            _ = try Self.run("/bin/chown", [Self.unprivilegedUser, directory])
        }
        try Self.runAsPostgresUser(bin + "/initdb", ["-D", directory + "/data", "-U", Self.superuser,
                                                      "--auth=trust", "-E", "UTF8", "--no-locale", "-N"])
        startWatchdog()
        try startNow()
        Self.removeAtExit(stop: [bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"],
                          folder: directory)
    }

    /// A server of its own, for a test that stops and restarts PostgreSQL (the shared
    /// one serves the other suites meanwhile). ``shutDown()`` it at the end; the process
    /// exit and the watchdog stop it otherwise.
    static func makePrivate() async throws -> TestPostgres {
        try await ChildProcess.onOwnThread { try TestPostgres() }
    }

    /// Starts the server (again) on its port; waits until it accepts connections.
    func start() async throws {
        try await ChildProcess.onOwnThread { [self] in try startNow() }
    }

    private func startNow() throws {
        try Self.runAsPostgresUser(binDirectory + "/pg_ctl", [
            "-D", dataDirectory, "-l", directory + "/postgres.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            "start",
        ])
    }

    /// Stops the server: `mode` is pg_ctl's (`fast` ends sessions and checkpoints,
    /// `immediate` aborts like a crash).
    func stop(mode: String = "fast") async throws {
        try await ChildProcess.onOwnThread { [self] in try stopNow(mode: mode) }
    }

    private func stopNow(mode: String) throws {
        try Self.runAsPostgresUser(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", mode, "-w", "stop"])
    }

    /// Stops the server for good and removes its folder.
    func shutDown() {
        _ = try? stopNow(mode: "immediate")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the process exit must stop and remove: every server this process started.
    private static func removeAtExit(stop: [String], folder: String) {
        cleanupLock.lock()
        defer { cleanupLock.unlock() }
        let first = cleanupServers.isEmpty
        cleanupServers.append((stop, folder))
        guard first else { return }
        atexit {
            TestPostgres.cleanupLock.lock()
            let servers = TestPostgres.cleanupServers
            TestPostgres.cleanupLock.unlock()
            for (command, folder) in servers {
                _ = try? TestPostgres.runAsPostgresUser(command[0], Array(command.dropFirst()))
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }

    private static let cleanupLock = NSLock()
    // Only read or written while holding `cleanupLock`.
    nonisolated(unsafe) private static var cleanupServers: [(stop: [String], folder: String)] = []

    /// Creates an empty database and returns its name.
    func makeDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try await Self.runOnOwnThread(binDirectory + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.superuser, name])
        return name
    }

    /// The output of `pg_dump` of a database (plain SQL, data included).
    func dump(_ database: String) async throws -> Data {
        try await Self.runOnOwnThread(binDirectory + "/pg_dump", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.superuser, database])
    }

    /// The output of `psql -At -c sql`.
    func psql(_ database: String, _ sql: String) async throws -> String {
        let data = try await Self.runOnOwnThread(binDirectory + "/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.superuser,
                                                         "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, database])
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The postmaster's process id (first line of postmaster.pid).
    func postmasterPID() throws -> Int32 {
        let text = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw TestPostgresError("postmaster.pid is unreadable")
        }
        return pid
    }

    /// A shell that waits for this process to go, then stops the server and removes
    /// the folder: the teardown when the test process is killed.
    private func startWatchdog() {
        let stop = "\(binDirectory)/pg_ctl -D '\(dataDirectory)' -m immediate stop"
        let asUser = getuid() == 0 ? "/usr/sbin/runuser -u \(Self.unprivilegedUser) -- \(stop)" : stop
        let script = "cd /; while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(asUser) >/dev/null 2>&1; rm -rf '\(directory)'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }

    private static func findBinDirectory() -> String? {
        var candidates: [String] = []
        if let output = try? run("/bin/sh", ["-c", "pg_config --bindir 2>/dev/null"]) {
            candidates.append(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
            && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestPostgresError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestPostgresError("bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestPostgresError("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a PostgreSQL server binary: as `nobody` when this process is root.
    @discardableResult
    static func runAsPostgresUser(_ executable: String, _ arguments: [String]) throws -> Data {
        if getuid() == 0 {
            // From /: pg_ctl refuses to start in a folder its user cannot enter (a clone
            // under /root, in CI).
            return try run("/usr/sbin/runuser", ["-u", unprivilegedUser, "--", "/bin/sh", "-c", "cd / && exec \"$@\"",
                                                 "sh", executable] + arguments)
        }
        return try run(executable, arguments)
    }

    /// Runs a command to completion on the calling thread; throws with its standard
    /// error when it fails (`ChildProcess`: posix_spawn, output in files, inherited
    /// descriptors closed).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        do {
            return try ChildProcess.run(executable, arguments)
        } catch let error as ChildProcessError {
            throw TestPostgresError(error.description)
        }
    }

    /// ``run(_:_:)`` waiting on a thread of its own, not on the caller's cooperative thread.
    @discardableResult
    static func runOnOwnThread(_ executable: String, _ arguments: [String]) async throws -> Data {
        try await ChildProcess.onOwnThread { try run(executable, arguments) }
    }
}

/// Why the test PostgreSQL could not be used.
struct TestPostgresError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
