import CSQLCipher
import Foundation
import MedVaultCore

/// The current row of a statement being stepped.
///
/// A `Row` is only valid inside the closure it is handed to; read the columns you
/// need there and return values, never the row itself.
///
/// ```swift
/// let names = try db.fetchAll("SELECT first_name, last_name FROM patient") { row in
///     (try row[0] as String, try row[1] as String)
/// }
/// ```
public struct Row {
    let statement: OpaquePointer

    /// The number of columns.
    public var columnCount: Int32 { sqlite3_column_count(statement) }

    /// Decodes column `index` (0-based) as `Value`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the stored value is NULL for a
    ///   non-optional type or is otherwise not decodable as `Value`.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int32) -> Value {
        get throws { try Value(row: self, column: index) }
    }

    /// Whether column `index` is NULL.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL).
    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Column `index` as a double (0 for NULL).
    public func double(at index: Int32) -> Double {
        sqlite3_column_double(statement, index)
    }

    /// Column `index` as UTF-8 text ("" for NULL).
    public func text(at index: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
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
        let pointer = sqlite3_column_blob(statement, index)
        let count = Int(sqlite3_column_bytes(statement, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Throws when column `index` is NULL.
    public func requireNotNull(_ index: Int32) throws {
        if isNull(at: index) {
            throw MedVaultError(.corrupted, reason: "a required stored value is NULL")
        }
    }
}
