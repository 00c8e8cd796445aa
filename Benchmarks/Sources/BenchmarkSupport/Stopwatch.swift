import Foundation

/// Wall-clock timing on the monotonic clock.
public enum Stopwatch {
    /// Seconds elapsed while running `body`.
    public static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    /// Seconds elapsed while running the async `body`.
    public static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds
    }

    /// CPU seconds (user + system, every thread of this process) spent while running the
    /// async `body`, next to the wall-clock seconds. On a machine shared with other work,
    /// wall-clock time includes waiting for a core; CPU time counts only the work done.
    public static func cpuAndWallSeconds(_ body: () async throws -> Void) async rethrows
        -> (cpu: Double, wall: Double) {
        let cpuStart = processCPUSeconds()
        let wall = try await seconds(body)
        return (processCPUSeconds() - cpuStart, wall)
    }

    /// This process's user + system CPU time so far, in seconds.
    public static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return .nan }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension Duration {
    /// The duration as a floating-point number of seconds.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
