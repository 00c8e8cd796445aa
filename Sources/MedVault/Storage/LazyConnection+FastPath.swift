import CSQLCipher
import MedVaultCore

/// The fast path of a short job: at once on its caller's thread — one of Swift's
/// cooperative threads — but never waiting there.
///
/// A job on the fast path runs only on a connection that is already open (opening reads
/// the schema and may wait for another process's lock), and with SQLite's busy timeout
/// at 0: a statement that would wait for a lock another connection holds fails at once
/// with `SQLITE_BUSY` instead, and the job is run again in line on the connection's own
/// thread, where the configured busy timeout applies. What stays on the caller's thread
/// is SQLite's own work and, for a write, its commit's `fsync` (docs/storage.md,
/// "What a short job may block").
extension LazyConnection {
    /// Runs `body` now if the connection is open, without waiting for any lock.
    ///
    /// - Returns: What `body` returned, or `nil` when the connection is not open yet or
    ///   a statement of `body` found a lock taken (`SQLITE_BUSY`, thrown or caught by
    ///   `body`): its transaction was rolled back, and the caller runs `body` again in
    ///   line. A read body may so run twice (documented on `VaultDatabase.read`); a write
    ///   finds the lock taken at its `BEGIN IMMEDIATE`, before any of its statements ran,
    ///   and the busy timeout is restored right after that `BEGIN`.
    func withoutWaiting<Value>(_ body: (LazyConnection) throws -> Value) throws -> Value? {
        try withoutWaitingForLocks {
            connection?.sawBusy = false
            // A body that caught the busy error itself (`try?`, a fallback value) would
            // return what it made of it: its value is dropped too, and it runs in line.
            // Not once a write holds the write lock (the timeout is then restored, and a
            // busy error after it is a real one, which running the write again would not
            // make right).
            var refusedAtOnce: Bool { isRefusingToWait && connection?.sawBusy == true }
            do {
                let value = try body(self)
                return refusedAtOnce ? nil : value
            } catch where refusedAtOnce {
                return nil
            }
        }
    }

    /// Runs `body` with the busy timeout at 0, if the connection is open; restores the
    /// configured timeout after.
    ///
    /// - Returns: `nil` without running `body` when the connection is not open.
    func withoutWaitingForLocks<Value>(_ body: () throws -> Value?) rethrows -> Value? {
        guard let handle = openHandle else { return nil }
        medvault_sqlite3_busy_timeout(handle, 0)
        isRefusingToWait = true
        defer { restoreBusyTimeout() }
        return try body()
    }

    /// Sets the open connection's busy timeout back to the configured one.
    func restoreBusyTimeout() {
        isRefusingToWait = false
        if let handle = openHandle { medvault_sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
    }

    /// Whether `error` is SQLite's `SQLITE_BUSY` (any extended code of it).
    static func isBusy(_ error: any Error) -> Bool {
        (error as? MedVaultError)?.sqliteResultCode?.primary == .busy
    }
}
