import Foundation
import MedVaultChildProcess

/// Child processes of the load run (PostgreSQL's tools, the sync server): through the
/// package's `ChildProcess` (posix_spawn, output in files), with its errors as `LoadError`.
enum LoadChild {
    /// Runs `executable` to completion; throws with its standard error when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        do {
            return String(decoding: try ChildProcess.run(executable, arguments, environment: environment), as: UTF8.self)
        } catch let error as ChildProcessError {
            throw LoadError(error.description)
        }
    }

    /// Starts `executable` in the background; its output goes to the two files.
    static func spawn(_ executable: String, _ arguments: [String], output: String, errors: String,
                      environment: [String: String]? = nil) throws -> pid_t {
        do {
            return try ChildProcess.spawn(executable, arguments, output: output, errors: errors, environment: environment)
        } catch let error as ChildProcessError {
            throw LoadError(error.description)
        }
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
