import Foundation

/// Lets ordinary reads and writes through on a lock-and-counter fast path, and lets
/// maintenance (a key rotation) stop new ones, wait for those in flight, and work
/// with every connection closed.
final class MaintenanceGate: @unchecked Sendable {
    // Safety of @unchecked Sendable: every stored property is read and written only
    // while holding `lock`; continuations are resumed after the lock is released.
    private let lock = NSLock()
    private var isPaused = false
    private var isClosed = false
    private var active = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var drained: CheckedContinuation<Void, Never>?
    private var closedAndDrained: [CheckedContinuation<Void, Never>] = []

    /// Waits while maintenance runs, then counts the caller in.
    ///
    /// - Throws: `locked` once the pool is closed.
    func enter() async throws {
        let admitted: Bool? = lock.withLock {
            if isClosed { return nil }
            if isPaused { return false }
            active += 1
            return true
        }
        guard let admitted else { throw VaultDatabase.closedError }
        if admitted { return }
        await withCheckedContinuation { continuation in
            let admittedNow: Bool = lock.withLock {
                if isPaused {
                    waiting.append(continuation)
                    return false
                }
                active += 1
                return true
            }
            if admittedNow { continuation.resume() }
        }
        if lock.withLock({ isClosed }) {
            leave()
            throw VaultDatabase.closedError
        }
    }

    /// Refuses every later caller; those in flight finish.
    func close() {
        lock.withLock { isClosed = true }
    }

    /// Closes the gate and waits until every admitted caller has left.
    func closeAndDrain() async {
        await withCheckedContinuation { continuation in
            let done: Bool = lock.withLock {
                isClosed = true
                if active == 0 { return true }
                closedAndDrained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Counts the caller out.
    func leave() {
        let toResume: [CheckedContinuation<Void, Never>] = lock.withLock {
            active -= 1
            guard active == 0 else { return [] }
            var resumed = closedAndDrained
            closedAndDrained.removeAll()
            if isPaused, let drained {
                resumed.append(drained)
                self.drained = nil
            }
            return resumed
        }
        for continuation in toResume { continuation.resume() }
    }

    /// Stops admitting callers and waits until none is in flight.
    func pauseAndDrain() async {
        await withCheckedContinuation { continuation in
            let done: Bool = lock.withLock {
                isPaused = true
                if active == 0 { return true }
                drained = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Admits callers again, the waiting ones first.
    func resume() {
        let admitted: [CheckedContinuation<Void, Never>] = lock.withLock {
            isPaused = false
            let admitted = waiting
            waiting.removeAll()
            active += admitted.count
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }
}
