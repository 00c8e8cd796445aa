/// An SQLite result code, by name: what ``MedVaultError/sqliteResultCode`` holds when a
/// failure came from SQLCipher.
///
/// Extended codes (for example `SQLITE_IOERR_FSYNC`) carry their primary code in the
/// low byte: ``primary`` gives it, so a switch over the named primary codes covers
/// every extended one.
///
/// For example:
///
/// ```swift
/// do {
///     try await vault.patients.create(patient)
/// } catch let error as MedVaultError where error.sqliteResultCode?.primary == .busy {
///     // another process held the write lock past the busy timeout
/// }
/// ```
///
/// Named `SQLiteResultCode`, not `ResultCode`, so that an app importing GRDB too sees
/// no ambiguity.
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as SQLite returns it (primary or extended).
    public let rawValue: Int32

    /// Wraps an SQLite result code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low byte of an extended code.
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is `code` or one of its extended codes.
    public func isPrimary(_ code: SQLiteResultCode) -> Bool { primary == code }

    public var description: String { "SQLite result code \(rawValue)" }

    // MARK: Primary codes (sqlite3.h)

    /// `SQLITE_OK`
    public static let ok = SQLiteResultCode(rawValue: 0)
    /// `SQLITE_ERROR`: a generic error (SQL logic error, missing database).
    public static let error = SQLiteResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL`
    public static let `internal` = SQLiteResultCode(rawValue: 2)
    /// `SQLITE_PERM`: access permission denied.
    public static let permission = SQLiteResultCode(rawValue: 3)
    /// `SQLITE_ABORT`: the operation was aborted (for example by a trigger's `RAISE`).
    public static let abort = SQLiteResultCode(rawValue: 4)
    /// `SQLITE_BUSY`: the database file is locked by another connection.
    public static let busy = SQLiteResultCode(rawValue: 5)
    /// `SQLITE_LOCKED`: a table in the database is locked.
    public static let locked = SQLiteResultCode(rawValue: 6)
    /// `SQLITE_NOMEM`
    public static let noMemory = SQLiteResultCode(rawValue: 7)
    /// `SQLITE_READONLY`: an attempt to write a read-only database.
    public static let readOnly = SQLiteResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT`: interrupted (MedVault interrupts a cancelled task's statement).
    public static let interrupt = SQLiteResultCode(rawValue: 9)
    /// `SQLITE_IOERR`: a disk I/O error.
    public static let ioError = SQLiteResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT`: the database disk image is malformed.
    public static let corrupt = SQLiteResultCode(rawValue: 11)
    /// `SQLITE_FULL`: the disk is full.
    public static let full = SQLiteResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN`: the file could not be opened.
    public static let cannotOpen = SQLiteResultCode(rawValue: 14)
    /// `SQLITE_SCHEMA`: the schema changed.
    public static let schema = SQLiteResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG`: a string or blob too large.
    public static let tooBig = SQLiteResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT`: a constraint (unique, foreign key, check) failed.
    public static let constraint = SQLiteResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH`: a data type mismatch.
    public static let mismatch = SQLiteResultCode(rawValue: 20)
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    public static let misuse = SQLiteResultCode(rawValue: 21)
    /// `SQLITE_NOTADB`: the file is not a database, or the key does not decrypt it.
    public static let notADatabase = SQLiteResultCode(rawValue: 26)
    /// `SQLITE_ROW`: a step produced a row.
    public static let row = SQLiteResultCode(rawValue: 100)
    /// `SQLITE_DONE`: a step finished.
    public static let done = SQLiteResultCode(rawValue: 101)
}

extension MedVaultError {
    /// ``sqliteCode`` by name, when the failure came from SQLCipher.
    public var sqliteResultCode: SQLiteResultCode? { sqliteCode.map(SQLiteResultCode.init(rawValue:)) }
}
