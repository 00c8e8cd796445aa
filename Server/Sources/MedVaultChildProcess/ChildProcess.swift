import Foundation

/// Child processes of the Server package's tools and tests (PostgreSQL's `initdb`,
/// `pg_ctl`, `psql`, the sync server executable) through `posix_spawn`, with their
/// output in files.
///
/// Not Foundation's `Process`: it learns that a child ended when a descriptor the child
/// inherits closes, and `pg_ctl start` leaves the postmaster running with it, so
/// `waitUntilExit()` would never return; a pipe for the output would never end either.
/// Every child closes the descriptors it would inherit above standard error
/// (``closeInheritedDescriptors(_:)``).
///
/// An internal target of the Server package (no product): for the load benchmark and the
/// tests only.
package enum ChildProcess {
    /// How a child ended: its wait status and what it wrote.
    package struct Termination: Sendable {
        /// The raw status `waitpid` reported.
        package let status: Int32
        /// Its standard output.
        package let output: Data
        /// Its standard error.
        package let errors: Data

        /// Whether it exited (not killed by a signal) with status 0.
        package var succeeded: Bool { (status & 0x7f) == 0 && (status >> 8) & 0xff == 0 }
    }

    /// Runs `executable` to completion on the calling thread; throws with its standard
    /// error when it fails.
    ///
    /// It blocks the thread until the child ends: from async code use
    /// ``runOnOwnThread(_:_:environment:)``, which keeps Swift's cooperative threads free.
    ///
    /// - Parameters:
    ///   - executable: The program's absolute path.
    ///   - arguments: Its arguments (without the program name).
    ///   - environment: Its environment; this process's by default.
    /// - Returns: What it wrote to standard output.
    /// - Throws: ``ChildProcessError`` when it cannot start, or does not exit 0.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String],
                            environment: [String: String]? = nil) throws -> Data {
        let termination = try runToEnd(executable, arguments, environment: environment)
        guard termination.succeeded else {
            throw ChildProcessError("\(name(executable)) failed (status \(termination.status)): "
                + String(decoding: termination.errors, as: UTF8.self))
        }
        return termination.output
    }

    /// ``run(_:_:environment:)`` with the wait on a thread of its own: the caller's task
    /// is suspended meanwhile, and no thread of Swift's cooperative pool is blocked.
    ///
    /// - Returns: What it wrote to standard output.
    /// - Throws: ``ChildProcessError`` when it cannot start, or does not exit 0.
    @discardableResult
    package static func runOnOwnThread(_ executable: String, _ arguments: [String],
                                       environment: [String: String]? = nil) async throws -> Data {
        try await onOwnThread { try run(executable, arguments, environment: environment) }
    }

    /// Runs blocking `work` on a new thread and suspends the caller until it ends, so a
    /// blocking call (waitpid, a `pg_ctl -w`) never holds one of the few threads of
    /// Swift's cooperative pool.
    package static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Starts `executable` in the background; its standard input is /dev/null, its
    /// output goes to the two files (created or truncated).
    ///
    /// - Returns: Its process id; the caller waits for it (``waitForExit(_:)``).
    /// - Throws: ``ChildProcessError`` when it cannot start.
    package static func spawn(_ executable: String, _ arguments: [String], output: String, errors: String,
                              environment: [String: String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try closeInheritedDescriptors(&actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw ChildProcessError("cannot start \(name(executable)): errno \(spawned)") }
        return pid
    }

    /// Waits (blocking the thread) until child `pid` ends; returns its raw wait status.
    package static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// Makes a spawned child close every descriptor above standard error before it runs:
    /// without it, a `pg_ctl start` child leaves a postmaster holding copies of this
    /// process's sockets (a test server's connections, URLSession's), so a connection the
    /// process closes is never shut down and its peer waits forever. glibc ≥ 2.34 has
    /// `posix_spawn_file_actions_addclosefrom_np` but declares it only under
    /// `_GNU_SOURCE`: it is found at run time.
    ///
    /// - Throws: ``ChildProcessError`` when glibc lacks it (before 2.34) or it fails.
    package static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_LAZY),
              let symbol = dlsym(process, "posix_spawn_file_actions_addclosefrom_np"),
              unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0 else {
            throw ChildProcessError("cannot make a child close inherited descriptors (glibc 2.34 or later is needed)")
        }
    }

    /// Runs to the end with the output in a temporary folder, removed afterwards.
    private static func runToEnd(_ executable: String, _ arguments: [String],
                                 environment: [String: String]?) throws -> Termination {
        var template = Array((FileManager.default.temporaryDirectory.path + "/medvault-run-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ChildProcessError("mkdtemp failed") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pid = try spawn(executable, arguments, output: folder + "/out", errors: folder + "/err",
                            environment: environment)
        let status = waitForExit(pid)
        return Termination(status: status,
                           output: (try? Data(contentsOf: URL(fileURLWithPath: folder + "/out"))) ?? Data(),
                           errors: (try? Data(contentsOf: URL(fileURLWithPath: folder + "/err"))) ?? Data())
    }

    private static func name(_ executable: String) -> String {
        (executable as NSString).lastPathComponent
    }
}

/// Why a child process could not be started, or failed. Its description names the
/// program and its status and carries its standard error (the Server package's tools
/// print no secret there).
package struct ChildProcessError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
