import MedVaultCore

/// How MedVault inserts a diagnosis since migration "shared diagnosis snapshots"
/// (`DiagnosisSnapshotSchema`): its snapshot found in `icd11_snapshot`, or added there,
/// then its row in `diagnosis_row`, pointing to it.
///
/// The repositories and sync insert through this rather than through the `diagnosis`
/// view: the view's `INSTEAD OF INSERT` trigger would make SQLite write every page the
/// insert modifies to a statement journal first (see `InsertCheckSchema`). Both paths
/// store the same rows; `DiagnosisSnapshotTests` compares them. Reads and updates go
/// through the view.
enum DiagnosisStorage {
    /// The view's columns that `icd11_snapshot` holds, in that table's order (the order
    /// of ``findSnapshot`` and ``insertSnapshot``'s arguments).
    static let snapshotColumns = ["release_version", "code", "uri", "title", "title_es"]

    private static let findSnapshot = """
        SELECT id FROM icd11_snapshot \
        WHERE release_version = ? AND code = ? AND uri = ? AND title = ? AND title_es IS ?
        """
    private static let insertSnapshot = """
        INSERT INTO icd11_snapshot (release_version, code, uri, title, title_es) VALUES (?, ?, ?, ?, ?)
        """

    /// Where each value of a column list goes (the snapshot's or the row's columns), and
    /// the row's `INSERT`: worked out once per list, so a batch of diagnoses with the
    /// same columns (every repository insert) builds no SQL per row.
    struct Layout: Sendable {
        /// For each column of the list, its index in ``snapshotColumns``, or `nil` for a
        /// column of `diagnosis_row`.
        let snapshotIndex: [Int?]
        /// `INSERT INTO diagnosis_row`: the row's columns in list order, then `snapshot_id`.
        let insertRow: String

        init(columns: [String]) {
            snapshotIndex = columns.map { snapshotColumns.firstIndex(of: $0) }
            let rowColumns = zip(columns, snapshotIndex).filter { $0.1 == nil }.map(\.0) + ["snapshot_id"]
            let placeholders = Array(repeating: "?", count: rowColumns.count).joined(separator: ", ")
            insertRow = "INSERT INTO diagnosis_row (\(rowColumns.joined(separator: ", "))) VALUES (\(placeholders))"
        }
    }

    /// Inserts one diagnosis given as the `diagnosis` view's columns and values.
    static func insert(columns: [String], values: [VaultValue], _ db: DatabaseConnection) throws {
        try insert(values, as: Layout(columns: columns), db)
    }

    /// Inserts one diagnosis whose values follow `layout`'s column list.
    ///
    /// Atomic, as the single `INSERT` it replaces: when the snapshot is new, its row and
    /// the diagnosis's are written in a savepoint, so a diagnosis refused by a constraint
    /// leaves no snapshot behind, even when the caller goes on and commits (sync applies
    /// a page and records a refused record in the same transaction).
    ///
    /// - Throws: The constraint error of a missing required value (`NOT NULL`, of
    ///   either table), a duplicate id or a missing session; nothing is written then.
    static func insert(_ values: [VaultValue], as layout: Layout, _ db: DatabaseConnection) throws {
        var snapshot = [VaultValue](repeating: .null, count: snapshotColumns.count)
        var rowValues: [VaultValue] = []
        rowValues.reserveCapacity(values.count + 1)
        for (value, index) in zip(values, layout.snapshotIndex) {
            if let index { snapshot[index] = value } else { rowValues.append(value) }
        }
        if let id = try db.fetchOne(findSnapshot, snapshot, { $0.int64(at: 0) }) {
            try db.execute(layout.insertRow, rowValues + [.integer(id)])
            return
        }
        try db.inSavepoint {
            try db.execute(insertSnapshot, snapshot)
            try db.execute(layout.insertRow, rowValues + [.integer(db.lastInsertedRowID)])
        }
    }
}
