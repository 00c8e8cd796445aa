import Foundation

/// Peak resident memory (VmHWM) of this process, from `/proc/self/status`.
///
/// To measure one workload's peak, ``resetPeak()`` writes `5` to
/// `/proc/self/clear_refs` (Linux ≥ 4.0), which resets VmHWM to the current
/// resident size; after the workload, VmHWM minus the resident size at the reset
/// is the peak the workload added. Verified on the benchmark machine (a 200 MiB
/// allocation, freed: VmHWM drops back to VmRSS after the reset). Where the reset
/// is unavailable (not Linux, or a restricted /proc) the functions return `nil`
/// and the table says "n/a" rather than a wrong figure.
///
/// Memory freed by an earlier workload but kept by the allocator would be resident at
/// the reset and reused without raising VmHWM; `malloc_trim(0)` before the reset
/// returns it to the kernel first (glibc). Allocator caches that survive the trim
/// still make the figure a lower bound; `--only` gives the most isolated figure.
enum PeakMemory {
    /// The resident set size now, in bytes.
    static func residentBytes() -> UInt64? { statusField("VmRSS") }

    /// The peak resident set size since start (or the last reset), in bytes.
    static func peakBytes() -> UInt64? { statusField("VmHWM") }

    /// Resets the peak to the current resident size; returns the resident size at
    /// the reset, or `nil` when the reset is not supported.
    static func resetPeak() -> UInt64? {
        // Hand the heap's free memory back to the kernel first, so that memory an
        // earlier workload freed is not silently reused below the baseline.
        trimHeap()
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return nil }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
        } catch {
            return nil
        }
        guard let resident = residentBytes(), let peak = peakBytes() else { return nil }
        // A kernel that ignored the request leaves the old, higher peak in place.
        guard peak <= resident + 4 * 1_048_576 else { return nil }
        return resident
    }

    /// Runs `body` and returns the peak resident memory it added, in MiB, or `nil`
    /// when this platform cannot reset the peak.
    static func peakAboveBaseline<T>(_ body: () async throws -> T) async rethrows -> (value: T, mebibytes: Double?) {
        let baseline = resetPeak()
        let value = try await body()
        guard let baseline, let peak = peakBytes() else { return (value, nil) }
        return (value, Double(peak > baseline ? peak - baseline : 0) / 1_048_576)
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (its header is not in the
    /// Glibc module); does nothing where it does not exist.
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    private static func statusField(_ name: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
                .split(separator: " ").first
            return number.flatMap { UInt64($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
