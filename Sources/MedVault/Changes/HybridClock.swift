import Foundation

/// The writer's hybrid logical clock: each value is `max(wall-clock ms << 16, last + 1)`,
/// so values rise strictly along the log even when the wall clock goes back, and the
/// physical part stays close to real time when it does not.
///
/// `last` is the highest value logged so far: the writer raises it to the log's newest
/// `hlc` at the first entry of every transaction (``ChangeLogWriter``), so the clock
/// also rises across reopens, other processes' writes and pruning (which keeps the
/// newest entry).
struct HybridClock {
    /// The highest value issued or observed.
    private(set) var last: Int64 = 0

    /// Raises ``last`` to `logged` (a value read from the log) if it is higher.
    mutating func observe(_ logged: Int64) {
        last = max(last, logged)
    }

    /// The next value at wall-clock time `milliseconds` (Unix ms).
    mutating func next(wallMilliseconds milliseconds: Int64) -> Int64 {
        let physical = milliseconds > 0 ? milliseconds << 16 : 0
        let value = max(physical, last + 1)
        last = value
        return value
    }

    /// The wall clock in Unix milliseconds.
    static func wallMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
