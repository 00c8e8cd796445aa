import Foundation

/// Who may use a connection right now: one holder at a time, either a caller that
/// found the connection idle and runs on its own thread, or the connection's thread
/// working through its line.
///
/// ``claimIfIdle()`` succeeds only when nobody holds the connection and nobody is in
/// line, so that callers on that fast path never overtake the ones waiting. Everybody
/// else calls ``joinLine()`` and is served by ``claimInLine()`` on the connection's
/// thread.
final class ConnectionOwnership: @unchecked Sendable {
    // Safety of @unchecked Sendable: `isHeld` and `queued` are read and written only
    // while holding `condition`'s lock.
    private let condition = NSCondition()
    private var isHeld = false
    private var queued = 0

    /// Takes the connection if nobody holds it and nobody is in line.
    func claimIfIdle() -> Bool {
        condition.lock(); defer { condition.unlock() }
        guard !isHeld && queued == 0 else { return false }
        isHeld = true
        return true
    }

    /// Counts the caller in line: from now on ``claimIfIdle()`` fails until the caller
    /// has been served by ``claimInLine()``.
    func joinLine() {
        condition.lock(); defer { condition.unlock() }
        queued += 1
    }

    /// Blocks until the connection is free, then takes it, leaving the line. Call it
    /// after ``joinLine()``, and only on the connection's own thread, never on Swift's
    /// cooperative pool. That thread is serial, so at most one caller ever waits here,
    /// and ``release()`` signals rather than broadcasts.
    func claimInLine() {
        condition.lock(); defer { condition.unlock() }
        assert(queued > 0, "claimInLine() without joinLine()")
        while isHeld { condition.wait() }
        isHeld = true
        queued -= 1
    }

    /// How many callers are in line (for tests).
    var queuedCount: Int {
        condition.lock(); defer { condition.unlock() }
        return queued
    }

    /// Gives the connection back.
    func release() {
        condition.lock(); defer { condition.unlock() }
        isHeld = false
        condition.signal()
    }
}
