import Foundation

/// Tells observers which tables the pool's writer just committed changes to.
///
/// The write path calls ``notify(_:)`` once after each successful `COMMIT` (of a
/// group commit: once, with the union of every body's tables), with the tables of the
/// change-log entries the transaction appended (`ChangeLogWriter`): no update hook,
/// no await, a lock and an empty check when nobody listens. A commit that logged
/// nothing notifies no one.
final class CommitSignal: @unchecked Sendable {
    // Safety of @unchecked Sendable: `listeners` and `nextToken` are read and written
    // only under `lock`; the listeners are `@Sendable` and called outside the lock.
    private let lock = NSLock()
    private var listeners: [UInt64: @Sendable (Set<VaultTable>) -> Void] = [:]
    private var nextToken: UInt64 = 0

    /// Registers `listener`, called after every commit that logged changes, on the
    /// committing thread: it must return at once (yield to a stream, set a flag).
    ///
    /// - Returns: The token that ``remove(_:)`` takes.
    func add(_ listener: @escaping @Sendable (Set<VaultTable>) -> Void) -> UInt64 {
        lock.withLock {
            nextToken += 1
            listeners[nextToken] = listener
            return nextToken
        }
    }

    /// Unregisters the listener of `token`.
    func remove(_ token: UInt64) {
        _ = lock.withLock { listeners.removeValue(forKey: token) }
    }

    /// Called by the pool after a successful commit that logged changes to `tables`.
    func notify(_ tables: Set<VaultTable>) {
        guard !tables.isEmpty else { return }
        let current = lock.withLock { listeners.isEmpty ? [] : Array(listeners.values) }
        for listener in current { listener(tables) }
    }
}
