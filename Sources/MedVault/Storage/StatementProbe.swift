#if BenchmarkSwitches
import CSQLCipher
import Foundation

/// Benchmarks only: counts what a pool's connections ask of SQLCipher, for `make bench`'s
/// per-update breakdown (issue #36 item 0; docs/benchmarks-method.md).
///
/// Set ``DatabaseConfiguration/_statementProbe`` before the pool opens: each connection
/// then reports every statement it runs (`sqlite3_trace_v2`), with its time inside
/// SQLCipher and the pages it found in the cache, read from the file and wrote
/// (`sqlite3_db_status`), sorted by what the statement touches; each connection, how long
/// it took to open and to prepare its statements; and each write, how long it waited
/// before its body ran (the group-commit hand-off). It reads only SQL text and counters,
/// never a bound value or a row.
///
/// Compiled only with the package trait `BenchmarkSwitches`, off by default: an app's
/// build has no such hook.
@_spi(Benchmarks) public final class StatementProbe: @unchecked Sendable, Hashable {
    /// What a statement works on, from its SQL text.
    public enum Category: String, CaseIterable, Sendable {
        /// The change log (`medvault_change`).
        case changeLog = "change log"
        /// The audit trail (`medvault_audit`).
        case auditTrail = "audit trail"
        /// `COMMIT`: the WAL write and, at `synchronous = FULL`, its fsync.
        case commit = "COMMIT"
        /// `BEGIN`, `SAVEPOINT`, `RELEASE`, `ROLLBACK`.
        case transactionControl = "BEGIN, savepoints"
        /// Everything else: the records, their search tokens, sync's bookkeeping.
        case records = "records and their indexes"
    }

    /// The counters since the last ``reset()``.
    public struct Totals: Sendable {
        /// Top-level statements run, by category.
        public var statements: [Category: Int] = [:]
        /// Nanoseconds inside SQLCipher (`sqlite3_step` to the statement's end), by category.
        public var nanoseconds: [Category: Int64] = [:]
        /// Trigger programs started by those statements.
        public var triggerPrograms = 0
        /// Pages found in the connection's cache.
        public var pageCacheHits = 0
        /// Pages read from the file (cache misses).
        public var pagesRead = 0
        /// Pages written to the WAL.
        public var pagesWritten = 0
        /// Writes started, and the nanoseconds from `write` being called to its body running.
        public var writes = 0
        /// See ``writes``.
        public var handOffNanoseconds: Int64 = 0
        /// Connections opened (`sqlite3_open_v2`, the key, the cipher settings, the check
        /// that the key reads the file, which parses the schema), and the nanoseconds it took.
        public var connectionsOpened = 0
        /// See ``connectionsOpened``.
        public var connectionOpenNanoseconds: Int64 = 0
        /// Statements prepared (once per connection and SQL text), and the nanoseconds it took.
        public var prepares = 0
        /// See ``prepares``.
        public var prepareNanoseconds: Int64 = 0

        /// Every counter at zero.
        public init() {}
    }

    private let lock = NSLock()
    private var totals = Totals()

    /// A probe with every counter at zero.
    public init() {}

    /// The counters since the last ``reset()``.
    public var current: Totals { lock.withLock { totals } }

    /// Sets every counter to zero.
    public func reset() { lock.withLock { totals = Totals() } }

    /// The same probe (identity: a configuration holding it equals only one holding it too).
    public static func == (lhs: StatementProbe, rhs: StatementProbe) -> Bool { lhs === rhs }

    /// Hashes the probe's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    func install(on handle: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        medvault_sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE), { event, context, statement, detail in
            guard let context, let statement else { return 0 }
            let probe = Unmanaged<StatementProbe>.fromOpaque(context).takeUnretainedValue()
            let stmt = OpaquePointer(statement)
            if event == UInt32(SQLITE_TRACE_STMT) {
                // A trigger program announces itself as "-- TRIGGER name".
                if let text = detail?.assumingMemoryBound(to: CChar.self), strncmp(text, "--", 2) == 0 {
                    probe.lock.withLock { probe.totals.triggerPrograms += 1 }
                }
                return 0
            }
            let nanoseconds = detail?.assumingMemoryBound(to: Int64.self).pointee ?? 0
            probe.record(stmt, nanoseconds: nanoseconds)
            return 0
        }, context)
    }

    func recordHandOff(_ duration: Duration) {
        let nanoseconds = Self.nanoseconds(duration)
        lock.withLock {
            totals.writes += 1
            totals.handOffNanoseconds += nanoseconds
        }
    }

    func recordConnectionOpen(_ duration: Duration) {
        let nanoseconds = Self.nanoseconds(duration)
        lock.withLock {
            totals.connectionsOpened += 1
            totals.connectionOpenNanoseconds += nanoseconds
        }
    }

    func recordPrepare(_ duration: Duration) {
        let nanoseconds = Self.nanoseconds(duration)
        lock.withLock {
            totals.prepares += 1
            totals.prepareNanoseconds += nanoseconds
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    private func record(_ statement: OpaquePointer, nanoseconds: Int64) {
        let category = Self.category(medvault_sqlite3_sql(statement))
        var hits: Int32 = 0, misses: Int32 = 0, writes: Int32 = 0, highwater: Int32 = 0
        if let db = medvault_sqlite3_db_handle(statement) {
            // Reset on read: each statement's pages, attributed to it.
            medvault_sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_HIT, &hits, &highwater, 1)
            medvault_sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &misses, &highwater, 1)
            medvault_sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_WRITE, &writes, &highwater, 1)
        }
        lock.withLock {
            totals.statements[category, default: 0] += 1
            totals.nanoseconds[category, default: 0] += nanoseconds
            totals.pageCacheHits += Int(hits)
            totals.pagesRead += Int(misses)
            totals.pagesWritten += Int(writes)
        }
    }

    static func category(_ sql: UnsafePointer<CChar>?) -> Category {
        guard let sql else { return .records }
        if strstr(sql, "medvault_audit") != nil { return .auditTrail }
        if strstr(sql, "medvault_change") != nil { return .changeLog }
        var start = sql
        while start.pointee == 32 || start.pointee == 10 { start += 1 }
        if strncasecmp(start, "COMMIT", 6) == 0 || strncasecmp(start, "END", 3) == 0 { return .commit }
        for word in ["BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK"] where strncasecmp(start, word, strlen(word)) == 0 {
            return .transactionControl
        }
        return .records
    }
}
#endif
