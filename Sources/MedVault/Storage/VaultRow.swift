import CSQLCipher
import Foundation
import MedVaultCore

/// The current row of a statement being stepped.
///
/// A `VaultRow` is only valid inside the closure it is handed to; read the columns you
/// need there and return values, never the row itself.
///
/// Read a column by position or by name:
///
/// ```swift
/// let names = try db.fetchAll("SELECT first_name, last_name FROM patient") { row in
///     (try row[0] as String, try row["last_name"] as String)
/// }
/// ```
public struct VaultRow {
    let statement: OpaquePointer

    /// The number of columns.
    public var columnCount: Int32 { medvault_sqlite3_column_count(statement) }

    /// Decodes column `index` (0-based) as `Value`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the stored value is NULL for a
    ///   non-optional type or is otherwise not decodable as `Value`.
    public subscript<Value: VaultValueConvertible>(_ index: Int32) -> Value {
        get throws { try Value(row: self, column: index) }
    }

    /// Decodes the column named `name` (compared case-insensitively, as SQL does).
    ///
    /// For example:
    ///
    /// ```swift
    /// let names = try db.fetchAll("SELECT first_name, last_name FROM patient") { row in
    ///     (try row["first_name"] as String, try row["last_name"] as String)
    /// }
    /// ```
    ///
    /// Looking a name up scans the statement's column names: in a loop over many
    /// rows, positions are cheaper.
    ///
    /// - Throws: `MedVaultError.Code.invalidArgument` when the statement has no
    ///   column of that name; `MedVaultError.Code.corrupted` as for a position.
    public subscript<Value: VaultValueConvertible>(_ name: String) -> Value {
        get throws {
            guard let index = index(ofColumn: name) else {
                throw MedVaultError(.invalidArgument, reason: "the statement has no column of that name")
            }
            return try Value(row: self, column: index)
        }
    }

    /// The position of the column named `name` (compared case-insensitively), or
    /// `nil` when the statement has none.
    public func index(ofColumn name: String) -> Int32? {
        for index in 0..<columnCount {
            if let pointer = medvault_sqlite3_column_name(statement, index),
               String(cString: pointer).caseInsensitiveCompare(name) == .orderedSame {
                return index
            }
        }
        return nil
    }

    /// Whether column `index` is NULL.
    public func isNull(at index: Int32) -> Bool {
        medvault_sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL).
    public func int64(at index: Int32) -> Int64 {
        medvault_sqlite3_column_int64(statement, index)
    }

    /// Column `index` as a double (0 for NULL).
    public func double(at index: Int32) -> Double {
        medvault_sqlite3_column_double(statement, index)
    }

    /// Column `index` as UTF-8 text ("" for NULL).
    public func text(at index: Int32) -> String {
        guard let pointer = medvault_sqlite3_column_text(statement, index) else { return "" }
        let count = Int(medvault_sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes (empty for NULL).
    public func blob(at index: Int32) -> Data {
        withBlob(at: index) { Data($0) }
    }

    /// Calls `body` with the bytes of column `index` without copying them.
    ///
    /// The buffer is valid only during the call.
    public func withBlob<Result>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let pointer = medvault_sqlite3_column_blob(statement, index)
        let count = Int(medvault_sqlite3_column_bytes(statement, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Throws when column `index` is NULL.
    public func requireNotNull(_ index: Int32) throws {
        if isNull(at: index) {
            throw MedVaultError(.corrupted, reason: "a required stored value is NULL")
        }
    }
}
