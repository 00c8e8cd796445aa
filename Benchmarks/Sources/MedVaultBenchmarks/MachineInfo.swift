import CSQLCipherBench
import Foundation

/// What a reader needs to compare two benchmark reports: the machine and the
/// library versions the figures were measured with.
struct MachineInfo: Sendable {
    /// The CPU model, from `/proc/cpuinfo` ("unknown" elsewhere).
    let cpuModel: String
    /// Logical cores available to this process.
    let coreCount: Int
    /// Physical memory, in bytes.
    let physicalMemory: UInt64
    /// The operating system kernel, e.g. "Linux 6.1.0".
    let kernel: String
    /// `PRAGMA cipher_version`.
    let sqlcipherVersion: String
    /// `sqlite3_libversion()` of the SQLite inside this process's SQLCipher.
    let sqliteVersion: String

    /// "7.8 GiB".
    var memoryDescription: String {
        String(format: "%.1f GiB", Double(physicalMemory) / 1_073_741_824)
    }

    /// Reads the current machine.
    static func current() -> MachineInfo {
        MachineInfo(
            cpuModel: cpuModelName() ?? "unknown",
            coreCount: ProcessInfo.processInfo.activeProcessorCount,
            physicalMemory: ProcessInfo.processInfo.physicalMemory,
            kernel: kernelDescription(),
            sqlcipherVersion: cipherVersion() ?? "unknown (not SQLCipher?)",
            sqliteVersion: String(cString: sqlite3_libversion())
        )
    }

    private static func cpuModelName() -> String? {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func kernelDescription() -> String {
        var info = utsname()
        guard uname(&info) == 0 else { return "unknown" }
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return "\(field(info.sysname)) \(field(info.release)) \(field(info.machine))"
    }

    /// Asks SQLCipher through an in-memory connection (no key needed for this pragma).
    private static func cipherVersion() -> String? {
        var handle: OpaquePointer?
        guard sqlite3_open(":memory:", &handle) == SQLITE_OK, let handle else { return nil }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "PRAGMA cipher_version", -1, &statement, nil) == SQLITE_OK,
              let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}
