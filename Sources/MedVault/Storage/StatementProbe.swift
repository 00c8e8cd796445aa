#if BenchmarkSwitches
import CSQLCipher
import Foundation

/// Benchmarks only: counts what a pool's connections ask of SQLCipher, for `make bench`'s
/// per-call breakdown (issue #36 item 0; docs/benchmarks-method.md).
///
/// Set ``DatabaseConfiguration/_statementProbe`` before the pool opens. Its writer and
/// readers (not its checkpoint connection, whose rounds run beside the calls) then
/// report each statement they run through `execute` or a query: the time its
/// `sqlite3_step` calls took (the caller's row decoding between steps is not counted),
/// sorted by what its SQL text touches, and the pages the connection found in its
/// cache, read from the file and wrote (`sqlite3_db_status`, reset after each
/// statement); the trigger programs statements start (`sqlite3_trace_v2`); each
/// connection, how long it took to open (schema read included) and to prepare its
/// statements; and each write, its hand-off. Scripts (`executeScript`: the pragmas of
/// an open, migrations) are not counted statement by statement. It reads only SQL text
/// and counters, never a bound value or a row.
///
/// Compiled only with the package trait `BenchmarkSwitches`, off by default: an app's
/// build has no such hook.
@_spi(Benchmarks) public final class StatementProbe: @unchecked Sendable, Hashable {
    // Safety of @unchecked Sendable: `totals` is read and written only while holding `lock`.

    /// What a statement works on, from its SQL text.
    public enum Category: String, CaseIterable, Sendable {
        /// The change log (`medvault_change`).
        case changeLog = "change log"
        /// The audit trail (`medvault_audit`).
        case auditTrail = "audit trail"
        /// `COMMIT`: for a write, the WAL write, its `fsync` and, when due, the writer's
        /// checkpoint catch-up (the WAL hook runs inside the step); a read's is cheap.
        case commit = "COMMIT"
        /// `BEGIN`, `SAVEPOINT`, `RELEASE`, `ROLLBACK`.
        case transactionControl = "BEGIN, savepoints"
        /// Everything else: the records, their search tokens, sync's bookkeeping.
        case records = "records and their indexes"
    }

    /// The counters since the last ``reset()``.
    public struct Totals: Sendable {
        /// Statements run, by category.
        public var statements: [Category: Int] = [:]
        /// Nanoseconds in their `sqlite3_step` calls, by category.
        public var nanoseconds: [Category: Int64] = [:]
        /// Trigger programs those statements started.
        public var triggerPrograms = 0
        /// Pages found in the connection's cache.
        public var pageCacheHits = 0
        /// Pages read from the file (cache misses).
        public var pagesRead = 0
        /// Pages written to the WAL.
        public var pagesWritten = 0
        /// Writes started, and their hand-off: the nanoseconds from `write` being called to
        /// its body running, less what the probe counted meanwhile (the transaction's
        /// `BEGIN`, a connection opened, a statement prepared), so the parts do not overlap.
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

        /// Nanoseconds counted in statements, opens and prepares.
        var countedNanoseconds: Int64 {
            nanoseconds.values.reduce(0, +) + connectionOpenNanoseconds + prepareNanoseconds
        }
    }

    /// Where a write's hand-off began.
    struct HandOffStart {
        let instant: ContinuousClock.Instant
        let counted: Int64
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

    /// Counts the trigger programs the connection's statements start.
    func install(on handle: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        medvault_sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, detail in
            // A trigger program announces itself as "-- TRIGGER name".
            guard let context, let text = detail?.assumingMemoryBound(to: CChar.self),
                  strncmp(text, "--", 2) == 0 else { return 0 }
            let probe = Unmanaged<StatementProbe>.fromOpaque(context).takeUnretainedValue()
            probe.lock.withLock { probe.totals.triggerPrograms += 1 }
            return 0
        }, context)
    }

    func handOffStarted() -> HandOffStart {
        let counted = lock.withLock { totals.countedNanoseconds }
        return HandOffStart(instant: .now, counted: counted)
    }

    func recordHandOff(since start: HandOffStart) {
        let elapsed = Self.nanoseconds(.now - start.instant)
        lock.withLock {
            totals.writes += 1
            totals.handOffNanoseconds += max(0, elapsed - (totals.countedNanoseconds - start.counted))
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

    /// One statement run on `handle`: `stepping` is the time its steps took.
    func recordStatement(_ statement: OpaquePointer, on handle: OpaquePointer, stepping: Duration) {
        let category = Self.category(medvault_sqlite3_sql(statement))
        var hits: Int32 = 0, misses: Int32 = 0, writes: Int32 = 0, highwater: Int32 = 0
        // Read and reset: the pages since the last statement, attributed to this one.
        medvault_sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_HIT, &hits, &highwater, 1)
        medvault_sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &misses, &highwater, 1)
        medvault_sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_WRITE, &writes, &highwater, 1)
        let nanoseconds = Self.nanoseconds(stepping)
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
        while isspace(Int32(start.pointee)) != 0 { start += 1 }
        if strncasecmp(start, "COMMIT", 6) == 0 || strncasecmp(start, "END", 3) == 0 { return .commit }
        for word in ["BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK"] where strncasecmp(start, word, word.utf8.count) == 0 {
            return .transactionControl
        }
        return .records
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
#endif
