import Foundation
import MedVaultCore

/// A value as SQLite stores it: NULL, a 64-bit integer, a double, text or a blob.
///
/// Statement arguments are arrays of `DatabaseValue`; build them from Swift values
/// with ``DatabaseValueConvertible/databaseValue``:
///
/// ```swift
/// try db.execute("UPDATE patient SET email = ? WHERE id = ?",
///                [patient.email.databaseValue, patient.id.databaseValue])
/// ```
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A Swift type that can be bound to a statement and read back from a row.
///
/// MedVault's storage conventions: `UUID` is a 16-byte blob, `Date` is integer
/// milliseconds since 1970 UTC, `CalendarDate` is `YYYY-MM-DD` text, `Bool` is 0/1.
public protocol DatabaseValueConvertible: Sendable {
    /// The value to bind.
    var databaseValue: DatabaseValue { get }

    /// Reads the value in column `index` of `row`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the stored value has the wrong type.
    init(row: Row, column index: Int32) throws
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.int64(at: index)
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = Int(row.int64(at: index))
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.int64(at: index) != 0
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.double(at: index)
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.text(at: index)
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.blob(at: index)
    }
}

extension UUID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        let uuid: UUID? = row.withBlob(at: index) { bytes in
            guard bytes.count == 16 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
            return UUID(uuid: value)
        }
        guard let uuid else {
            throw MedVaultError(.corrupted, reason: "a stored identifier is not a 16-byte UUID")
        }
        self = uuid
    }
}

extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(millisecondsSince1970) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        self = Date(millisecondsSince1970: row.int64(at: index))
    }
}

extension CalendarDate: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(iso8601) }
    public init(row: Row, column index: Int32) throws {
        try row.requireNotNull(index)
        do {
            try self.init(iso8601: row.text(at: index))
        } catch {
            throw MedVaultError(.corrupted, reason: "a stored calendar date is malformed")
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: return .null
        case .some(let value): return value.databaseValue
        }
    }
    public init(row: Row, column index: Int32) throws {
        if row.isNull(at: index) {
            self = .none
        } else {
            self = .some(try Wrapped(row: row, column: index))
        }
    }
}
