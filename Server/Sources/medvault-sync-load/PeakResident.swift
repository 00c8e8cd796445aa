import Foundation

/// This process's peak resident memory above a baseline, from `/proc/self/status`
/// (VmHWM, reset by writing `5` to `/proc/self/clear_refs`, Linux ≥ 4.0). The same
/// method as `make bench`'s peak-memory rows; `nil` where the reset is unavailable.
enum PeakResident {
    /// Runs `body` and returns the peak resident memory it added, in MiB.
    static func mebibytesAbove<T>(_ body: () async throws -> T) async rethrows -> (value: T, mebibytes: Double?) {
        let baseline = reset()
        let value = try await body()
        guard let baseline, let peak = field("VmHWM") else { return (value, nil) }
        return (value, Double(peak > baseline ? peak - baseline : 0) / 1_048_576)
    }

    /// Resets the peak to the resident size now, which it returns.
    private static func reset() -> UInt64? {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return nil }
        defer { try? handle.close() }
        guard (try? handle.write(contentsOf: Data("5".utf8))) != nil,
              let resident = field("VmRSS"), let peak = field("VmHWM"), peak <= resident + 4 << 20 else { return nil }
        return resident
    }

    private static func field(_ name: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            // "VmHWM:\t  144044 kB": a tab, then spaces.
            return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { UInt64($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
