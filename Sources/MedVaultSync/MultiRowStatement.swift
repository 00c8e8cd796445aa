import MedVault

/// One statement for up to 64 rows: `INSERT … VALUES (…), (…)` or `DELETE … WHERE (…) OR (…)`.
///
/// SQLCipher's cost per executed statement, not per row, dominated the sync engine's
/// per-record writes: in the first seal of 42,000 records (docs/benchmarks-method.md)
/// each record's clock took 40 µs as its own `INSERT OR REPLACE` and 22 µs as one row of
/// a 64-row statement. Statements exist for 1, 2, 4 … 64 rows, so a batch of any size
/// runs as few prepared (and cached) statements.
struct MultiRowStatement: Sendable {
    /// The statement for 2^level rows, level 0…6.
    let statements: [String]
    private let valuesPerRow: Int

    /// - Parameters:
    ///   - prefix: The SQL before the rows (`INSERT INTO t (a, b) VALUES `, `DELETE FROM t WHERE `).
    ///   - row: One row's SQL with its `?` placeholders (`(?, ?)`, `(a = ? AND b = ?)`).
    ///   - separator: Between two rows: `, ` for `VALUES`, ` OR ` for `WHERE` terms.
    init(_ prefix: String, row: String, separator: String = ", ") {
        statements = (0...6).map { level in prefix + Array(repeating: row, count: 1 << level).joined(separator: separator) }
        valuesPerRow = row.filter { $0 == "?" }.count
    }

    /// Runs the statement over `items`, in order, with `values(item)` as each row's
    /// placeholders (exactly as many as the row has).
    func execute<Item>(_ items: [Item], _ db: DatabaseConnection, values: (Item) -> [VaultValue]) throws {
        var start = 0
        while start < items.count {
            var level = statements.count - 1
            while (1 << level) > items.count - start { level -= 1 }
            let end = start + (1 << level)
            var arguments: [VaultValue] = []
            arguments.reserveCapacity((end - start) * valuesPerRow)
            for item in items[start..<end] { arguments += values(item) }
            try db.execute(statements[level], arguments)
            start = end
        }
    }
}
