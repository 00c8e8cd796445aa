extension VaultDatabase {
    /// How long a transaction is expected to take, which decides the thread it runs on.
    ///
    /// A hop to a connection's own thread and back costs tens of microseconds on a
    /// busy machine, as much as most repository calls spend in SQLite. So a short
    /// transaction that finds its connection idle, with nobody waiting for it, runs at
    /// once on the calling task's thread, which blocks meanwhile: for the transaction's
    /// own work, for a write its commit's `fsync` (and, about once every 1,000 written
    /// pages, SQLite's automatic WAL checkpoint), for the first call on a connection
    /// its opening, and when another process holds the database's write lock, up to
    /// the busy timeout. Everything else runs on the connection's thread, so long work
    /// never occupies one of Swift's cooperative threads (there are only as many as
    /// the CPU has cores).
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
