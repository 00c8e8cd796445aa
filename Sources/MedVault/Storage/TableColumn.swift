/// The columns of one table, in the order its queries select them: written once, as
/// the cases of an enum, so that a column list, the row decoding and the statement
/// arguments cannot drift apart.
///
/// Each case is named after its SQL column in camel case (`firstName` is `first_name`,
/// `patientID` is `patient_id`): ``name`` derives it, and an enum overrides ``name``
/// only for a column whose name does not follow (`rowid`). Its raw value is its position
/// in ``selection``, so reading `row[PatientColumn.email]` costs what `row[6]` does,
/// without the arithmetic.
///
/// ```swift
/// enum NoteColumn: Int32, RecordColumn {
///     case id, body
///     static func value(of note: Note, _ column: NoteColumn) -> any VaultValueConvertible {
///         switch column {
///         case .id: note.id
///         case .body: note.body
///         }
///     }
/// }
/// let insert = "INSERT INTO note (\(NoteColumn.selection)) VALUES (\(NoteColumn.placeholders))"
/// try db.execute(insert, NoteColumn.arguments(note))
/// ```
protocol TableColumn: CaseIterable, RawRepresentable, Sendable where RawValue == Int32 {
    /// The SQL name; by default derived from the case name (``derivedName``).
    var name: String { get }
}

/// A ``TableColumn`` whose values come straight from one stored value, ``Record``:
/// ``value(of:_:)`` says which of its properties goes in which column (one exhaustive
/// `switch`, checked by the compiler), and the statement arguments follow from it.
protocol RecordColumn: TableColumn {
    /// The value a row of this table stores.
    associatedtype Record

    /// The value `record` stores in `column`.
    static func value(of record: Record, _ column: Self) -> any VaultValueConvertible
}

extension TableColumn {
    /// The SQL name.
    var name: String { derivedName }

    /// The case name in snake case: a capital that starts a word becomes `_` and lower
    /// case, and a run of capitals is one word (`patientID` is `patient_id`).
    var derivedName: String {
        let characters = Array(String(describing: self))
        var name = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    name += "_"
                }
            }
            name += character.lowercased()
        }
        return name
    }

    /// Every column, comma-separated, in order: a `SELECT` or `INSERT` column list.
    static var selection: String {
        allCases.map(\.name).joined(separator: ", ")
    }

    /// Every column with a table alias (`p.id, p.first_name, …`).
    static func selection(alias: String) -> String {
        allCases.map { "\(alias).\($0.name)" }.joined(separator: ", ")
    }

    /// One `?` per column, comma-separated: the `VALUES` of an `INSERT` of every column.
    static var placeholders: String {
        Array(repeating: "?", count: allCases.count).joined(separator: ", ")
    }

    /// `column = ?` for each of `columns`, comma-separated: the `SET` list of an `UPDATE`.
    static func assignments(_ columns: [Self]) -> String {
        columns.map { "\($0.name) = ?" }.joined(separator: ", ")
    }

    /// `INSERT INTO table (c1, …) VALUES (?, …)` over `columns`, in their order, then
    /// the columns `extra` no row selects.
    static func insert(into table: String, _ columns: [Self], extra: [String] = []) -> String {
        let names = (columns.map(\.name) + extra).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count + extra.count).joined(separator: ", ")
        return "INSERT INTO \(table) (\(names)) VALUES (\(marks))"
    }

    /// `UPDATE table SET c1 = ?, … WHERE key = ?` over `columns`, in their order.
    static func update(_ table: String, set columns: [Self], where key: String) -> String {
        "UPDATE \(table) SET \(assignments(columns)) WHERE \(key) = ?"
    }
}

extension RecordColumn {
    /// The arguments binding `record`'s values of `columns`, in that order.
    static func arguments(_ record: Record, _ columns: [Self]) -> [VaultValue] {
        columns.map { value(of: record, $0).vaultValue }
    }

    /// The arguments binding `record`'s value of every column, in order.
    static func arguments(_ record: Record) -> [VaultValue] {
        allCases.map { value(of: record, $0).vaultValue }
    }

    /// What an `UPDATE` from `stored` to `value` assigns: `columns`, less each group of
    /// `costly` whose values are all unchanged.
    ///
    /// SQLite rewrites a row's entry in every index on a column an `UPDATE` assigns, and
    /// runs every `UPDATE OF` trigger on it, even when the value stays the same: each
    /// index entry is one more page encrypted and written at commit, and a trigger makes
    /// the statement keep a journal of the pages it changes. `costly` names the columns
    /// an index or a trigger watches, grouped as those watch them, so that an update's
    /// work is what it changes, with at most 2ⁿ statements for n groups.
    static func assigned(_ columns: [Self], leavingUnchanged costly: [[Self]], from stored: Record,
                         to value: Record) -> [Self] {
        let unchanged = costly.filter { group in
            group.allSatisfy { self.value(of: stored, $0).vaultValue == self.value(of: value, $0).vaultValue }
        }.flatMap { $0.map(\.rawValue) }
        return columns.filter { !unchanged.contains($0.rawValue) }
    }
}

extension VaultRow {
    /// Decodes `column` of a row selected with `Column`'s ``TableColumn/selection``.
    ///
    /// - Throws: `MedVaultError.Code.corrupted`, as the positional subscript does.
    subscript<Value: VaultValueConvertible, Column: TableColumn>(_ column: Column) -> Value {
        get throws { try Value(row: self, column: column.rawValue) }
    }
}

/// A row read by column name with the column type known, so a case needs no type:
/// `try row[.name]` instead of `try row[MedicationRow.Column.name]`.
struct ColumnRow<Column: TableColumn> {
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
