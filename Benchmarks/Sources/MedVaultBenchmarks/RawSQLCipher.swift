import CSQLCipherBench
import Foundation
import MedVault

/// The reference side of every storage benchmark: SQLCipher driven through its C
/// API with nothing in between, configured with exactly the settings MedVault's
/// connections use (see `docs/storage.md`), so that MedVault ÷ reference measures
/// the Swift layer and not a difference in configuration.
///
/// Statements are prepared once by the caller, then bound, stepped and reset —
/// the fastest way to drive SQLite. Not thread-safe: one task uses one instance.
///
/// ```swift
/// let db = try RawSQLCipher(path: path, key: .raw(keyBytes), role: .writer)
/// let insert = try db.prepare("INSERT INTO t(a) VALUES (?)")
/// try insert.bind(1, Int64(42)); try insert.run()
/// ```
final class RawSQLCipher {
    /// How the connection is keyed.
    enum Key {
        /// 32 raw key bytes, passed as the `x'<64 hex>'` literal, as MedVault does:
        /// SQLCipher uses them as the key without key derivation.
        case raw([UInt8])
        /// A passphrase: SQLCipher derives the key with its own PBKDF2 on every open.
        case passphrase(String)
    }

    /// Mirrors MedVault's writer (read-write, WAL) or reader (read-only, `query_only`).
    enum Role {
        case writer
        case reader
    }

    let handle: OpaquePointer

    /// Opens and configures a connection.
    ///
    /// - Parameters:
    ///   - path: The database file (created if `create` is true).
    ///   - key: The key, raw or passphrase.
    ///   - role: Writer or reader settings.
    ///   - create: Whether a missing file may be created.
    ///   - configuration: The values MedVault would use; the defaults are MedVault's.
    /// - Throws: ``RawSQLiteError`` on any failure.
    init(path: String, key: Key, role: Role = .writer, create: Bool = false,
         configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        var opened: OpaquePointer?
        var flags = (role == .writer ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else { throw RawSQLiteError(code: result, message: "out of memory", context: "open") }
        handle = opened
        guard result == SQLITE_OK else {
            let error = RawSQLiteError(handle, result, "open")
            sqlite3_close_v2(opened)
            throw error
        }
        do {
            try Self.applyKey(key, to: opened)
            // Same statements, same order as DatabaseConnection.open.
            try exec("PRAGMA cipher_page_size = \(configuration.cipherPageSize); PRAGMA cipher_use_hmac = ON;")
            sqlite3_busy_timeout(opened, configuration.busyTimeoutMilliseconds)
            try exec("""
                PRAGMA foreign_keys = ON;
                PRAGMA synchronous = FULL;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = -\(configuration.cacheSizeKiB);
                """)
            switch role {
            case .writer: try exec("PRAGMA journal_mode = WAL;")
            case .reader: try exec("PRAGMA query_only = ON;")
            }
        } catch {
            sqlite3_close_v2(opened)
            throw error
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    private static func applyKey(_ key: Key, to handle: OpaquePointer) throws {
        let bytes: [UInt8]
        switch key {
        case .raw(let raw):
            let digits = Array("0123456789abcdef".utf8)
            bytes = Array("x'".utf8) + raw.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] } + Array("'".utf8)
        case .passphrase(let passphrase):
            bytes = Array(passphrase.utf8)
        }
        let result = bytes.withUnsafeBytes { sqlite3_key(handle, $0.baseAddress, Int32($0.count)) }
        if result != SQLITE_OK { throw RawSQLiteError(handle, result, "key") }
    }

    /// Runs `;`-separated statements without arguments (rows are discarded).
    func exec(_ sql: String) throws {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        if result != SQLITE_OK { throw RawSQLiteError(handle, result, "exec") }
    }

    /// Prepares one statement; keep it and reuse it.
    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else { throw RawSQLiteError(handle, result, "prepare") }
        return RawStatement(statement, connection: handle)
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Pages this connection read from the file (page-cache misses, each one read and
    /// decrypted) and found in its cache (hits) since the last call: the pages a query
    /// touched, for the read-path diagnostics.
    func takePageCounts() -> (misses: Int, hits: Int) {
        var current: Int32 = 0
        var highwater: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &current, &highwater, 1)
        let misses = Int(current)
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_HIT, &current, &highwater, 1)
        return (misses, Int(current))
    }

    /// The first column of the first row of `sql`, as an integer.
    func scalarInt64(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    /// The first column of the first row of `sql`, as text.
    func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(at: 0) : nil
    }
}
