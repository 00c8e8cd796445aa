import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

extension DatabaseConnection {
    /// The role of a connection in a pool.
    enum Role {
        case writer
        case reader
        /// Read-write, for the pool's background WAL checkpoints: a small page cache,
        /// and it never changes the journal mode.
        case checkpointer
    }

    /// Why SQLCipher could not be loaded, or `nil` once it is: it is loaded privately, at
    /// the first open in the process (`medvault_sqlcipher_load` in CSQLCipher), so that
    /// an app may link the system SQLite too (GRDB).
    static let sqlCipherUnavailable: MedVaultError? = {
        guard medvault_sqlcipher_load() != 0 else { return nil }
        let why = medvault_sqlcipher_load_error().map { String(cString: $0) } ?? "SQLCipher could not be loaded"
        return MedVaultError(.encryptionUnavailable, reason: why)
    }()

    /// Whether OpenSSL, SQLCipher's crypto library here, agreed to skip its exit-time
    /// cleanup; asked once, when SQLCipher is loaded, before its first call (see
    /// `medvault_openssl_skip_exit_cleanup` in CSQLCipher: that cleanup races threads
    /// still ending at exit and crashes the process).
    static let openSSLExitCleanupSkipped: Bool = medvault_openssl_skip_exit_cleanup() == 1

    /// Opens, keys, verifies and configures one connection.
    ///
    /// The key is given to SQLCipher as the blob literal `x'<64 hex digits>'`, the
    /// only form it takes as a raw key: raw bytes would be treated as a passphrase
    /// and stretched with PBKDF2 on every open. The literal is built in a
    /// `SecureBytes` buffer, never in a `String`, and wiped when this returns.
    static func open(
        path: String, key: SecureBytes, role: Role, configuration: DatabaseConfiguration
    ) throws -> DatabaseConnection {
        if let sqlCipherUnavailable { throw sqlCipherUnavailable }
        var handle: OpaquePointer?
        let flags = (role == .reader ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let opened = medvault_sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else {
            throw MedVaultError(.storage, reason: "SQLite could not allocate a connection", sqliteCode: opened)
        }
        let connection = DatabaseConnection(handle: handle)
        guard opened == SQLITE_OK else {
            throw connection.failure(opened, "opening the database file")
        }
        medvault_sqlite3_extended_result_codes(handle, 1)
        // Before the first read: another connection may hold a lock (switching a new
        // file to WAL, a checkpoint), and that must be waited for, not reported.
        medvault_sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds)

        try connection.applyRawKey(key)
        try connection.requireCipher()
        try connection.applyCipherSettings(configuration.cipherSettings)
        try connection.verifyKey()

        try connection.executeScript("""
            PRAGMA foreign_keys = ON;
            PRAGMA synchronous = FULL;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -\(role == .checkpointer ? 64 : configuration.cacheSizeKiB);
            """)
        switch role {
        case .writer:
            let mode = try connection.fetchOne("PRAGMA journal_mode = WAL") { row in row.text(at: 0) }
            guard mode?.lowercased() == "wal" else {
                throw MedVaultError(.storage, reason: "the database could not be switched to WAL mode")
            }
        case .reader:
            try connection.executeScript("PRAGMA query_only = ON;")
        case .checkpointer:
            break
        }
        return connection
    }

    /// Keys the connection with `x'<hex>'`.
    private func applyRawKey(_ key: SecureBytes) throws {
        let literal = try Self.rawKeyLiteral(key)
        defer { literal.wipe() }
        let result = try literal.withUnsafeBytes { bytes in
            medvault_sqlite3_key(handle, bytes.baseAddress, Int32(bytes.count))
        }
        if result != SQLITE_OK { throw failure(result, "applying the database key") }
    }

    /// The text `x'<64 hex digits>'` in a secure buffer: SQLCipher's raw-key form.
    /// Wipe it as soon as it has been handed over.
    static func rawKeyLiteral(_ key: SecureBytes) throws -> SecureBytes {
        guard key.count == 32 else {
            throw MedVaultError(.invalidArgument, reason: "a database key must be 32 bytes")
        }
        return try SecureBytes(count: 67) { buffer in
            let digits = Array("0123456789abcdef".utf8)
            buffer[0] = UInt8(ascii: "x")
            buffer[1] = UInt8(ascii: "'")
            try key.withUnsafeBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    buffer[2 + index * 2] = digits[Int(byte >> 4)]
                    buffer[3 + index * 2] = digits[Int(byte & 0x0F)]
                }
            }
            buffer[66] = UInt8(ascii: "'")
        }
    }

    /// Fails closed when the linked library is plain SQLite: only SQLCipher answers
    /// `PRAGMA cipher_version`.
    private func requireCipher() throws {
        let version = try fetchOne("PRAGMA cipher_version") { row in row.text(at: 0) }
        guard let version, !version.isEmpty else {
            throw MedVaultError(.encryptionUnavailable,
                                reason: "the linked SQLite library is not SQLCipher; refusing to store data unencrypted")
        }
    }

    /// Reads the schema: the first read that needs the key to be right.
    private func verifyKey() throws {
        do {
            _ = try fetchOne("SELECT count(*) FROM sqlite_master") { row in row.int64(at: 0) }
        } catch let error as MedVaultError where error.sqliteResultCode?.primary == .notADatabase {
            throw MedVaultError(.wrongKey,
                                reason: "the key does not decrypt this database with the given cipher settings, or the file is not a MedVault database",
                                sqliteCode: error.sqliteCode)
        }
    }

    /// The SQLCipher version string, e.g. `3.4.1`.
    func cipherVersion() throws -> String {
        try fetchOne("PRAGMA cipher_version") { row in row.text(at: 0) } ?? ""
    }
}

extension DatabaseConnection {
    /// `ATTACH DATABASE ? AS <name> KEY ?`, with the key bound from a secure buffer
    /// (never formatted into SQL text).
    func attach(_ path: String, as name: String, keyLiteral: SecureBytes) throws {
        var statement: OpaquePointer?
        let sql = "ATTACH DATABASE ? AS \(name) KEY ?"
        let prepared = medvault_sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared, "attaching a database") }
        defer { medvault_sqlite3_finalize(statement) }
        medvault_sqlite3_bind_text(statement, 1, path, -1, sqliteTransient)
        let result: Int32 = try keyLiteral.withUnsafeBytes { bytes in
            // SQLITE_STATIC: the buffer outlives the step below.
            medvault_sqlite3_bind_blob(statement, 2, bytes.baseAddress, Int32(bytes.count), nil)
            return medvault_sqlite3_step(statement)
        }
        guard result == SQLITE_DONE else { throw failure(result, "attaching a database") }
    }
}
