import CSQLCipherBench

/// A prepared statement of a ``RawSQLCipher`` connection, finalised on deinit.
/// Parameter and column indexes follow SQLite: parameters from 1, columns from 0.
final class RawStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer

    init(_ statement: OpaquePointer, connection: OpaquePointer) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds an integer.
    func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(statement, index, value), "bind")
    }

    /// Binds UTF-8 text (copied by SQLite, as MedVault does).
    func bind(_ index: Int32, _ value: String) throws {
        var value = value
        let result = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(statement, index, chars.baseAddress, Int32(chars.count), rawSQLiteTransient)
            }
        }
        try check(result, "bind")
    }

    /// Binds a blob (copied by SQLite, as MedVault does).
    func bind(_ index: Int32, bytes: [UInt8]) throws {
        let result = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                              Int32(buffer.count), rawSQLiteTransient)
        }
        try check(result, "bind")
    }

    /// Binds NULL.
    func bindNull(_ index: Int32) throws {
        try check(sqlite3_bind_null(statement, index), "bind")
    }

    /// Steps once: `true` when a row is available, `false` when done.
    @discardableResult
    func step() throws -> Bool {
        let result = sqlite3_step(statement)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        throw RawSQLiteError(connection, result, "step")
    }

    /// Steps to completion, then resets: one execution of a statement without rows.
    func run() throws {
        defer { sqlite3_reset(statement) }
        while try step() {}
    }

    /// Makes the statement ready to be bound and stepped again.
    func reset() {
        sqlite3_reset(statement)
    }

    /// Column `index` of the current row as an integer.
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Binds optional text (NULL for `nil`).
    func bind(_ index: Int32, _ value: String?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    /// Whether column `index` of the current row is NULL.
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// Column `index` of the current row as optional text.
    func optionalText(at index: Int32) -> String? {
        isNull(at: index) ? nil : text(at: index)
    }

    /// Column `index` of the current row as an optional integer.
    func optionalInt64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : int64(at: index)
    }

    /// Column `index` of the current row as bytes (copied out).
    func blob(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` of the current row as text.
    func text(at index: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private func check(_ result: Int32, _ context: String) throws {
        if result != SQLITE_OK { throw RawSQLiteError(connection, result, context) }
    }
}

/// SQLite's SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
let rawSQLiteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
