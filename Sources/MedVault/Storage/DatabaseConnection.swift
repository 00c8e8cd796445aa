import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// One SQLCipher connection: statements, bindings, rows.
///
/// You never create a connection yourself: ``VaultDatabase`` hands one to the closure
/// of ``VaultDatabase/read(duration:_:)`` or ``VaultDatabase/write(duration:_:)``, already keyed,
/// configured and inside a transaction. Do not let it escape that closure.
///
/// Statements are prepared once per connection and cached by their SQL text, so
/// write SQL with `?` placeholders and pass values as arguments, never by
/// interpolating them into the text (that would also defeat the cache).
///
/// ```swift
/// try await pool.write { db in
///     try db.execute("INSERT INTO note(id, body) VALUES (?, ?)",
///                    [id.vaultValue, body.vaultValue])
/// }
/// ```
public final class DatabaseConnection {
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private var isClosed = false
    /// Whether statements that would write are refused (a read served by the writer).
    ///
    /// Checked per statement with `sqlite3_stmt_readonly` rather than with
    /// `PRAGMA query_only`: changing a flag pragma expires every prepared statement of
    /// the connection, so each read would pay to prepare its statements again.
    var refusesWrites = false

    /// Whether a statement failed with `SQLITE_BUSY` since the flag was last cleared:
    /// how a job on the fast path (busy timeout 0) learns it met another connection's
    /// lock even when its body caught the error (``LazyConnection/withoutWaiting(_:)``).
    var sawBusy = false
    #if BenchmarkSwitches
    /// Benchmarks only: told each statement's steps, pages and prepare time.
    var probe: StatementProbe?
    #endif
    /// Appends change-log entries in this connection's write transactions.
    private(set) lazy var changeLogWriter = ChangeLogWriter(connection: self)

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        close()
    }

    // MARK: - Executing

    /// Runs one statement that returns no rows (or whose rows you ignore).
    ///
    /// - Parameters:
    ///   - sql: One SQL statement with `?` placeholders.
    ///   - arguments: The values for the placeholders, in order.
    /// - Throws: `MedVaultError` mapped from the SQLite result.
    public func execute(_ sql: String, _ arguments: [VaultValue] = []) throws {
        let statement = try cachedStatement(sql)
        try checkWritePermitted(statement)
        var stepping = Duration.zero
        defer {
            finished(statement, stepping: stepping)
            reset(statement)
        }
        try bind(arguments, to: statement)
        while true {
            let result = step(statement, adding: &stepping)
            if result == SQLITE_DONE { return }
            if result != SQLITE_ROW { throw failure(result, "executing a statement") }
        }
    }

    /// Runs several `;`-separated statements without arguments (schema scripts).
    public func executeScript(_ sql: String) throws {
        if refusesWrites { return try executeReadOnlyScript(sql) }
        let result = medvault_sqlite3_exec(handle, sql, nil, nil, nil)
        if result != SQLITE_OK { throw failure(result, "executing a script") }
    }

    /// Runs a query and maps every row.
    ///
    /// - Parameters:
    ///   - sql: One `SELECT` with `?` placeholders.
    ///   - arguments: The values for the placeholders.
    ///   - map: Turns the current row into a value. The row is valid only during the call.
    /// - Returns: The mapped rows, in the order SQLite returns them.
    public func fetchAll<Value>(
        _ sql: String, _ arguments: [VaultValue] = [], _ map: (VaultRow) throws -> Value
    ) throws -> [Value] {
        var values: [Value] = []
        try forEachRow(sql, arguments) { row in
            values.append(try map(row))
            return true
        }
        return values
    }

    /// Runs a query and maps its first row, if any.
    public func fetchOne<Value>(
        _ sql: String, _ arguments: [VaultValue] = [], _ map: (VaultRow) throws -> Value
    ) throws -> Value? {
        var value: Value?
        try forEachRow(sql, arguments) { row in
            value = try map(row)
            return false
        }
        return value
    }

    /// Runs a query and calls `body` for each row until it returns `false`.
    ///
    /// Rows are not collected: use this to stream a large result.
    public func forEachRow(
        _ sql: String, _ arguments: [VaultValue] = [], _ body: (VaultRow) throws -> Bool
    ) throws {
        let statement = try cachedStatement(sql)
        try checkWritePermitted(statement)
        var stepping = Duration.zero
        defer {
            finished(statement, stepping: stepping)
            reset(statement)
        }
        try bind(arguments, to: statement)
        let row = VaultRow(statement: statement)
        while true {
            let result = step(statement, adding: &stepping)
            if result == SQLITE_DONE { return }
            guard result == SQLITE_ROW else { throw failure(result, "reading rows") }
            if try !body(row) { return }
        }
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    public var changedRowCount: Int {
        Int(medvault_sqlite3_changes(handle))
    }

    /// The rowid of the last inserted row.
    public var lastInsertedRowID: Int64 {
        medvault_sqlite3_last_insert_rowid(handle)
    }

    // MARK: - Statements

    #if BenchmarkSwitches
    /// One `sqlite3_step`, timed when a probe listens (benchmarks only).
    private func step(_ statement: OpaquePointer, adding stepping: inout Duration) -> Int32 {
        guard probe != nil else { return medvault_sqlite3_step(statement) }
        let started = ContinuousClock.now
        defer { stepping += .now - started }
        return medvault_sqlite3_step(statement)
    }

    /// Tells the probe, if any, that `statement` ran (benchmarks only).
    private func finished(_ statement: OpaquePointer, stepping: Duration) {
        probe?.recordStatement(statement, on: handle, stepping: stepping)
    }
    #else
    @inline(__always)
    private func step(_ statement: OpaquePointer, adding _: inout Duration) -> Int32 {
        medvault_sqlite3_step(statement)
    }

    @inline(__always)
    private func finished(_: OpaquePointer, stepping _: Duration) {}
    #endif

    private func cachedStatement(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        #if BenchmarkSwitches
        let started = ContinuousClock.now
        defer { probe?.recordPrepare(.now - started) }
        #endif
        let result = medvault_sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw failure(result, "preparing a statement")
        }
        statements[sql] = statement
        return statement
    }

    /// Refuses a statement that would write while ``refusesWrites`` is set, with the
    /// error a read connection (`query_only`) gives.
    private func checkWritePermitted(_ statement: OpaquePointer) throws {
        if refusesWrites && medvault_sqlite3_stmt_readonly(statement) == 0 {
            throw SQLiteResult.error(SQLITE_READONLY, connection: nil, context: "writing in a read transaction")
        }
    }

    /// Runs a script one statement at a time, refusing any that would write.
    private func executeReadOnlyScript(_ sql: String) throws {
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                let result = medvault_sqlite3_prepare_v2(handle, current, -1, &statement, &next)
                guard result == SQLITE_OK else { throw failure(result, "executing a script") }
                guard let statement else { continue }  // only whitespace or a comment
                defer { medvault_sqlite3_finalize(statement) }
                try checkWritePermitted(statement)
                var step = medvault_sqlite3_step(statement)
                while step == SQLITE_ROW { step = medvault_sqlite3_step(statement) }
                if step != SQLITE_DONE { throw failure(step, "executing a script") }
            }
        }
    }

    private func reset(_ statement: OpaquePointer) {
        medvault_sqlite3_reset(statement)
        medvault_sqlite3_clear_bindings(statement)
    }

    private func bind(_ arguments: [VaultValue], to statement: OpaquePointer) throws {
        let expected = Int(medvault_sqlite3_bind_parameter_count(statement))
        guard expected == arguments.count else {
            throw MedVaultError(.invalidArgument,
                                reason: "a statement expects \(expected) arguments, got \(arguments.count)")
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null:
                result = medvault_sqlite3_bind_null(statement, index)
            case .integer(let integer):
                result = medvault_sqlite3_bind_int64(statement, index, integer)
            case .real(let double):
                result = medvault_sqlite3_bind_double(statement, index, double)
            case .text(let text):
                var text = text
                result = text.withUTF8 { bytes in
                    medvault_sqlite3_bind_text(statement, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                      Int32(bytes.count), sqliteTransient)
                }
            case .blob(let data):
                result = data.withUnsafeBytes { bytes in
                    // A zero-length blob needs a non-NULL pointer, or SQLite binds NULL.
                    medvault_sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                      Int32(bytes.count), sqliteTransient)
                }
            }
            if result != SQLITE_OK { throw failure(result, "binding an argument") }
        }
    }

    // MARK: - Lifecycle

    /// Finalises every cached statement and closes the connection.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for statement in statements.values { medvault_sqlite3_finalize(statement) }
        statements.removeAll()
        medvault_sqlite3_close_v2(handle)
    }

    func failure(_ code: Int32, _ context: String) -> MedVaultError {
        let code = medvault_sqlite3_extended_errcode(handle) == 0 ? code : medvault_sqlite3_extended_errcode(handle)
        if code & 0xFF == SQLITE_BUSY { sawBusy = true }
        return SQLiteResult.error(code, connection: handle, context: context, file: databaseFile)
    }

    /// The main database file of this connection, named in failure messages.
    var databaseFile: URL? {
        guard let path = medvault_sqlite3_db_filename(handle, "main").map({ String(cString: $0) }), !path.isEmpty else {
            return nil
        }
        return URL(fileURLWithPath: path)
    }
}

/// SQLite's SQLITE_TRANSIENT: copy the bound bytes before returning.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
