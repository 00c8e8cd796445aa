import Foundation

/// Child processes of the load run (PostgreSQL's tools, the sync server) through
/// posix_spawn, with their output in files: Foundation's `Process` waits on inherited
/// pipes that `pg_ctl start` never closes.
enum LoadChild {
    /// Runs `executable` to completion; throws with its standard error when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let folder = try temporaryFolder("run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pid = try spawn(executable, arguments, output: folder + "/out", errors: folder + "/err",
                            environment: environment)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: folder + "/out", encoding: .utf8)) ?? ""
        guard (status & 0x7f) == 0, (status >> 8) & 0xff == 0 else {
            let errors = (try? String(contentsOfFile: folder + "/err", encoding: .utf8)) ?? ""
            throw LoadError("\((executable as NSString).lastPathComponent) failed (status \(status)): \(errors)")
        }
        return output
    }

    /// Starts `executable` in the background; its output goes to the two files.
    static func spawn(_ executable: String, _ arguments: [String], output: String, errors: String,
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
        guard spawned == 0 else {
            throw LoadError("cannot start \((executable as NSString).lastPathComponent): errno \(spawned)")
        }
        return pid
    }

    /// A new folder under the temporary directory.
    static func temporaryFolder(_ tag: String) throws -> String {
        var template = Array("/tmp/medvault-load-\(tag)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw LoadError("mkdtemp failed") }
        return String(cString: made)
    }

    /// CPU seconds (user + system) a process has used so far, from /proc, with those of
    /// its children that ended when `waitedChildren`; 0 when it is gone.
    static func cpuSeconds(_ pid: pid_t, waitedChildren: Bool = false) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (field 2): utime, stime, cutime, cstime are 14…17.
        let fields = stat[stat.index(after: close)...].split(separator: " ").map { Double($0) ?? 0 }
        guard fields.count > 14 else { return 0 }
        let ticks = fields[11] + fields[12] + (waitedChildren ? fields[13] + fields[14] : 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The parent process id of `pid`, from /proc.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// `root` and its direct children (PostgreSQL's postmaster and backends).
    static func processTree(_ root: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return [root] + entries.compactMap { pid_t($0) }.filter { parent(of: $0) == root }
    }
}

/// Why the load run stopped.
struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Makes a spawned child close every descriptor above standard error before it runs:
/// without it, a `pg_ctl start` child leaves a postmaster holding copies of this process's
/// sockets (a test server's connections, URLSession's), so a connection the process closes
/// is never shut down and its peer waits forever. glibc ≥ 2.34 has
/// `posix_spawn_file_actions_addclosefrom_np` but declares it only under `_GNU_SOURCE`:
/// it is found at run time.
func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let process = dlopen(nil, RTLD_LAZY),
          let symbol = dlsym(process, "posix_spawn_file_actions_addclosefrom_np") else {
        throw SpawnDescriptorsError()
    }
    guard unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0 else { throw SpawnDescriptorsError() }
}

/// `posix_spawn_file_actions_addclosefrom_np` is missing (glibc < 2.34) or failed.
struct SpawnDescriptorsError: Error, CustomStringConvertible {
    var description: String { "cannot make a child close inherited descriptors (glibc 2.34 or later is needed)" }
}
