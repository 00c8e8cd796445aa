import Foundation
import MedVaultCore

/// A value as SQLite stores it: NULL, a 64-bit integer, a double, text or a blob.
///
/// Statement arguments are arrays of `VaultValue`; build them from Swift values
/// with ``VaultValueConvertible/vaultValue``:
///
/// ```swift
/// try db.execute("UPDATE patient SET email = ? WHERE id = ?",
///                [patient.email.vaultValue, patient.id.vaultValue])
/// ```
///
/// Two values are equal as SQLite compares them (`IS`): text by its UTF-8 bytes. Swift's
/// `String` equality is canonical equivalence ("é" as one scalar equals "e" followed by
/// a combining accent), but those are two different stored values, and deciding that a
/// column is unchanged from `String` equality would leave the old bytes in place.
public enum VaultValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether SQLite would see the same value: text compared by its UTF-8 bytes.
    public static func == (lhs: VaultValue, rhs: VaultValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.integer(left), .integer(right)): left == right
        case let (.real(left), .real(right)): left == right
        case let (.text(left), .text(right)): left.utf8.elementsEqual(right.utf8)
        case let (.blob(left), .blob(right)): left == right
        default: false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``: text by its UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3)
            var value = value
            value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let value):
            hasher.combine(4)
            hasher.combine(value)
        }
    }
}

/// A Swift type that can be bound to a statement and read back from a row.
///
/// MedVault's storage conventions: `UUID` is a 16-byte blob, `Date` is integer
/// milliseconds since 1970 UTC, `CalendarDate` is `YYYY-MM-DD` text, `Bool` is 0/1.
public protocol VaultValueConvertible: Sendable {
    /// The value to bind.
    var vaultValue: VaultValue { get }

    /// Reads the value in column `index` of `row`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the stored value has the wrong type.
    init(row: VaultRow, column index: Int32) throws
}

extension Int64: VaultValueConvertible {
    public var vaultValue: VaultValue { .integer(self) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.int64(at: index)
    }
}

extension Int: VaultValueConvertible {
    public var vaultValue: VaultValue { .integer(Int64(self)) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = Int(row.int64(at: index))
    }
}

extension Bool: VaultValueConvertible {
    public var vaultValue: VaultValue { .integer(self ? 1 : 0) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.int64(at: index) != 0
    }
}

extension Double: VaultValueConvertible {
    public var vaultValue: VaultValue { .real(self) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.double(at: index)
    }
}

extension String: VaultValueConvertible {
    public var vaultValue: VaultValue { .text(self) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.text(at: index)
    }
}

extension Data: VaultValueConvertible {
    public var vaultValue: VaultValue { .blob(self) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = row.blob(at: index)
    }
}

extension UUID: VaultValueConvertible {
    public var vaultValue: VaultValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }
    public init(row: VaultRow, column index: Int32) throws {
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

extension Date: VaultValueConvertible {
    public var vaultValue: VaultValue { .integer(millisecondsSince1970) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        self = Date(millisecondsSince1970: row.int64(at: index))
    }
}

extension CalendarDate: VaultValueConvertible {
    public var vaultValue: VaultValue { .text(iso8601) }
    public init(row: VaultRow, column index: Int32) throws {
        try row.requireNotNull(index)
        do {
            try self.init(iso8601: row.text(at: index))
        } catch {
            throw MedVaultError(.corrupted, reason: "a stored calendar date is malformed")
        }
    }
}

extension Optional: VaultValueConvertible where Wrapped: VaultValueConvertible {
    public var vaultValue: VaultValue {
        switch self {
        case .none: return .null
        case .some(let value): return value.vaultValue
        }
    }
    public init(row: VaultRow, column index: Int32) throws {
        if row.isNull(at: index) {
            self = .none
        } else {
            self = .some(try Wrapped(row: row, column: index))
        }
    }
}
