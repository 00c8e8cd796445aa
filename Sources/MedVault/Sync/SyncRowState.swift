import Foundation
import MedVaultCore

/// A record's full stored state as sync carries it: every column of its row but the
/// table's local integer primary key (a `rowid` alias such as a search index's docid,
/// or an addendum's position), by column name.
///
/// Package API for the sync engine. Column-level, not a second domain serialisation:
/// it carries exactly what the repositories stored — ids, versions, stamps,
/// deactivation, signatures, unknown enum raw values — so a receiving device holds the
/// same row, and its export (`Vault.exportAllRecords()`) is the same document.
package struct SyncRowState: Sendable, Hashable, Codable {
    /// The row's columns.
    package var columns: [String: SyncColumnValue]

    package init(columns: [String: SyncColumnValue]) {
        self.columns = columns
    }

    /// The `version` column, when the table has one.
    package var version: Int64? {
        if case .integer(let version)? = columns["version"] { return version }
        return nil
    }
}

/// One SQLite value of a ``SyncRowState``, encoded as a one-key JSON object
/// (`{"i":1}`, `{"r":1.5}`, `{"t":"…"}`, `{"b":"<base64>"}`) or `null`.
package enum SyncColumnValue: Sendable, Hashable, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    private enum Key: String, CodingKey { case i, r, t, b }

    package init(_ value: VaultValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }

    /// Equal as the stored values are (``VaultValue``'s equality: text by its bytes), so
    /// that a synced change to a canonically equivalent spelling is applied, not taken
    /// for the value the row already holds.
    package static func == (lhs: SyncColumnValue, rhs: SyncColumnValue) -> Bool {
        lhs.vaultValue == rhs.vaultValue
    }

    package func hash(into hasher: inout Hasher) {
        vaultValue.hash(into: &hasher)
    }

    package var vaultValue: VaultValue {
        switch self {
        case .null: .null
        case .integer(let v): .integer(v)
        case .real(let v): .real(v)
        case .text(let v): .text(v)
        case .blob(let v): .blob(v)
        }
    }

    package init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a column value has one key"))
        }
        switch key {
        case .i: self = .integer(try container.decode(Int64.self, forKey: .i))
        case .r: self = .real(try container.decode(Double.self, forKey: .r))
        case .t: self = .text(try container.decode(String.self, forKey: .t))
        case .b: self = .blob(try container.decode(Data.self, forKey: .b))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .null: break
        case .integer(let v): try container.encode(v, forKey: .i)
        case .real(let v): try container.encode(v, forKey: .r)
        case .text(let v): try container.encode(v, forKey: .t)
        case .blob(let v): try container.encode(v, forKey: .b)
        }
    }
}
