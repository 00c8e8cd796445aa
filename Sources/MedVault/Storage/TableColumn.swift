/// The columns of one table, in the order its queries select them: written once, as
/// the cases of an enum, so that a column list, the row decoding and the statement
/// arguments cannot drift apart.
///
/// Each case is named after its SQL column in camel case (`firstName` is
/// `first_name`); its raw value is its position in ``selection``, so reading
/// `row[PatientColumn.email]` costs what `row[6]` does, without the arithmetic.
/// ``Record`` is the value the table stores, and ``value(of:_:)`` says which of its
/// properties goes in which column: one exhaustive `switch`, checked by the compiler.
///
/// ```swift
/// enum NoteColumn: Int32, TableColumn {
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
    /// The value a row of this table stores.
    associatedtype Record

    /// The value `record` stores in `column`.
    static func value(of record: Record, _ column: Self) -> any VaultValueConvertible
}

extension TableColumn {
    /// The SQL name: the case name with each capital turned into `_` and lower case.
    var name: String {
        var name = ""
        for character in String(describing: self) {
            if character.isUppercase {
                name += "_" + character.lowercased()
            } else {
                name.append(character)
            }
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

    /// The arguments binding `record`'s values of `columns`, in that order.
    static func arguments(_ record: Record, _ columns: [Self]) -> [VaultValue] {
        columns.map { value(of: record, $0).vaultValue }
    }

    /// The arguments binding `record`'s value of every column, in order.
    static func arguments(_ record: Record) -> [VaultValue] {
        allCases.map { value(of: record, $0).vaultValue }
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
