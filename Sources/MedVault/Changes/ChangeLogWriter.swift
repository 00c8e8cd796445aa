import CSQLCipher
import Foundation
import MedVaultCore

/// Appends entries to `medvault_change` on one connection, inside the transaction of
/// the write they record: the one call site of every repository write function
/// (`try db.changeLog.append(…)`), and later of the audit trail and sync.
///
/// Why Swift and not triggers: see ``ChangeLogSchema``. Each entry is one row; a batch
/// is written with multi-row `INSERT`s (up to 64 rows a statement), through the
/// connection's cached prepared statements.
///
/// Per transaction, the first append reads the log's newest `hlc` and the device id
/// (one statement), so the clock rises above every entry already logged — by this
/// connection, another process, or before a reopen. The writer also remembers which
/// tables the transaction touched: the pool passes them to observers after the commit
/// (`CommitSignal`). A rolled-back savepoint restores the set (``mark()``,
/// ``restore(_:)``); its rows roll back with it.
///
/// Not `Sendable`: it belongs to its connection and is used only by the holder of it.
final class ChangeLogWriter {
    /// The connection owning this writer: `unowned` because it owns the writer.
    private unowned let connection: DatabaseConnection
    private var clock = HybridClock()
    /// The current device's row in `medvault_device`.
    private var deviceID: VaultValue = .null
    private var isLoaded = false
    /// Tables with an entry in the current transaction.
    private(set) var touchedTables: Set<VaultTable> = []
    /// App tables already checked to exist on this connection (``DatabaseConnection/logChange(in:id:operation:version:)``).
    var checkedAppTables: Set<VaultTable> = []
    /// Set from `DatabaseConfiguration._changeLogDisabled` (benchmarks only).
    var isDisabled = false
    /// The wall clock, replaceable by tests.
    var wallMilliseconds: () -> Int64 = HybridClock.wallMilliseconds
    /// Writes the audit entry of each change logged here (docs/audit.md).
    let audit: AuditTrailWriter

    init(connection: DatabaseConnection) {
        self.connection = connection
        self.audit = AuditTrailWriter(connection: connection)
    }

    // MARK: - Transaction boundaries (called by the pool)

    /// A write transaction began: the next append reloads the clock and device id.
    func transactionBegan() {
        isLoaded = false
        touchedTables = []
        audit.invalidate()
    }

    /// The touched tables before a savepoint, to restore if it rolls back.
    func mark() -> Set<VaultTable> { touchedTables }

    /// The savepoint marked with `tables` rolled back: so did its entries.
    func restore(_ tables: Set<VaultTable>) {
        touchedTables = tables
        audit.invalidate()
    }

    /// The tables the committed transaction touched; empties the set.
    func takeCommittedTables() -> Set<VaultTable> {
        defer { touchedTables = [] }
        audit.invalidate()
        return touchedTables
    }

    // MARK: - Appending

    /// Appends one entry; `origin` is the device the change came from through sync (its
    /// audit entry names it), `nil` for a change made here.
    func append(table: VaultTable, id: UUID, operation: ChangeOperation, version: Int64?, origin: UUID? = nil) throws {
        if isDisabled { return }
        try load()
        let now = wallMilliseconds()
        try connection.execute(Self.insertSQL[0], arguments(table, id, operation, version, now: now))
        touchedTables.insert(table)
        try audit.append([(table, id, operation, origin)], now: now, device: deviceID)
    }

    #if BenchmarkSwitches
    /// Appends `count` audit entries for random patient ids and no record (benchmarks only).
    func appendSyntheticAuditEntries(_ count: Int) throws {
        try load()
        try audit.append((0..<count).map { _ in (VaultTable.patient, UUID(), ChangeOperation.update, nil) },
                         now: wallMilliseconds(), device: deviceID)
    }
    #endif

    /// Appends an audit entry for an event that changes no record (an export, a backup,
    /// an unlock): the `Vault` facade's call, inside a write transaction.
    func appendAuditEvent(_ action: AuditAction, table: VaultTable?, id: UUID?) throws {
        try load()
        try audit.append(action: action, table: table, id: id, now: wallMilliseconds(), device: deviceID)
    }

    /// Appends one entry per record, in order.
    func append(_ records: [ChangeRecord]) throws {
        guard !records.isEmpty, !isDisabled else { return }
        try load()
        // One wall-clock read per call: the counter orders the entries within it.
        let now = wallMilliseconds()
        var previousTable: VaultTable?
        var start = 0
        while start < records.count {
            // The largest chunk of 64, 32, …, 1 rows that fits: at most 7 statements,
            // each prepared once per connection.
            var level = Self.insertSQL.count - 1
            while (1 << level) > records.count - start { level -= 1 }
            let size = 1 << level
            var values: [VaultValue] = []
            values.reserveCapacity(size * 6)
            for record in records[start..<(start + size)] {
                values += arguments(record.table, record.id, record.operation, record.version, now: now)
                if record.table != previousTable {
                    touchedTables.insert(record.table)
                    previousTable = record.table
                }
            }
            try connection.execute(Self.insertSQL[level], values)
            start += size
        }
        try audit.append(records.map { ($0.table, $0.id, $0.operation, $0.origin) }, now: now, device: deviceID)
    }

    private func arguments(_ table: VaultTable, _ id: UUID, _ operation: ChangeOperation,
                           _ version: Int64?, now: Int64) -> [VaultValue] {
        [ChangeLogCodes.stored(table), id.vaultValue, ChangeLogCodes.stored(operation), version.map(VaultValue.integer) ?? .null,
         .integer(clock.next(wallMilliseconds: now)), deviceID]
    }

    /// Reads the newest `hlc` and the device id once per transaction.
    private func load() throws {
        guard !isLoaded else { return }
        guard medvault_sqlite3_get_autocommit(connection.handle) == 0 else {
            throw MedVaultError(.invalidArgument,
                                reason: "a change can be logged only inside a write transaction (vault.database.write)")
        }
        let row = try connection.fetchOne(Self.loadSQL) { row in
            (device: row.isNull(at: 0) ? nil : row.int64(at: 0), hlc: row.isNull(at: 1) ? 0 : row.int64(at: 1))
        }
        guard let row, let device = row.device else {
            throw MedVaultError(.corrupted, reason: "the vault's change-log device id is missing")
        }
        deviceID = .integer(device)
        clock.observe(row.hlc)
        isLoaded = true
    }

    static let loadSQL = """
        SELECT (SELECT max(id) FROM medvault_device), \
        (SELECT hlc FROM medvault_change ORDER BY seq DESC LIMIT 1)
        """

    /// `INSERT` statements of 1, 2, 4, … 64 rows.
    static let insertSQL: [String] = (0...6).map { level in
        let rows = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: 1 << level).joined(separator: ", ")
        return "INSERT INTO medvault_change (table_name, record_id, operation, version, hlc, device) VALUES \(rows)"
    }
}

extension DatabaseConnection {
    /// The change-log writer of this connection (see ``ChangeLogWriter``).
    var changeLog: ChangeLogWriter { changeLogWriter }
}
