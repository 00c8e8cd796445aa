extension VaultDatabase {
    /// How long a transaction is expected to take, which decides the thread it runs on.
    ///
    /// A hop to a connection's own thread and back costs tens of microseconds on a
    /// busy machine, as much as most repository calls spend in SQLite. So a short
    /// transaction that finds its connection open and idle, with nobody waiting for it,
    /// runs at once on the calling task's thread, which blocks meanwhile for the
    /// transaction's own work and, for a write, its commit's `fsync` — never for
    /// another connection's lock: with the busy timeout at 0 there, a statement that
    /// finds one taken fails at once, and the transaction (rolled back) runs again in
    /// line on the connection's thread, where the busy timeout applies. A short read
    /// body may so run twice. Everything else, a connection's opening included, runs
    /// on the connection's thread, so waits and long work never occupy one of Swift's
    /// cooperative threads (there are only as many as the CPU has cores).
    /// docs/storage.md, "What a short job may block".
    public enum ExpectedDuration: Sendable, Hashable {
        /// A few milliseconds at most: single rows, one patient's history, a page of
        /// search results. Runs on the calling thread when the connection is idle,
        /// otherwise waits in line on the connection's thread. The default.
        case short
        /// Longer: bulk inserts, attachment streaming, scans of whole tables. Always
        /// runs on the connection's own thread.
        case long
    }
}
