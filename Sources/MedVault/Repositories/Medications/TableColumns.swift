import Foundation

/// The columns a row mapping selects, as an enum whose raw values are their
/// positions in the SELECT list: the SELECT list, the INSERT column list and the
/// reads are all generated from the one enum, so they cannot drift apart.
protocol TableColumns: CaseIterable, RawRepresentable where RawValue == Int32 {
    /// The column's SQL name.
    var name: String { get }
}

extension TableColumns {
    /// Every column's name, in position order, comma-separated.
    static var selectList: String {
        allCases.map(\.name).joined(separator: ", ")
    }

    /// ``selectList`` with every name prefixed by `alias` and a dot, for joins.
    static func selectList(alias: String) -> String {
        allCases.map { "\(alias).\($0.name)" }.joined(separator: ", ")
    }

    /// `INSERT INTO table (c1, …) VALUES (?, …)` over `columns`, in their order, then
    /// the unselected columns `extra`.
    static func insert(into table: String, _ columns: [Self], extra: [String] = []) -> String {
        let names = (columns.map(\.name) + extra).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count + extra.count).joined(separator: ", ")
        return "INSERT INTO \(table) (\(names)) VALUES (\(marks))"
    }

    /// `UPDATE table SET c1 = ?, … WHERE key = ?` over `columns`, in their order.
    static func update(_ table: String, set columns: [Self], where key: String) -> String {
        let assignments = columns.map { "\($0.name) = ?" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE \(key) = ?"
    }
}

/// A row read by column name: `try row[.name]` instead of `try row[2]`.
struct ColumnRow<Column: TableColumns> {
    let row: VaultRow

    /// Decodes `column` as `Value`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` as ``VaultRow``'s subscript does.
    subscript<Value: VaultValueConvertible>(_ column: Column) -> Value {
        get throws { try row[column.rawValue] }
    }

    /// Whether `column` is NULL.
    func isNull(_ column: Column) -> Bool {
        row.isNull(at: column.rawValue)
    }

    /// `column` as an integer (0 for NULL).
    func int64(_ column: Column) -> Int64 {
        row.int64(at: column.rawValue)
    }
}
