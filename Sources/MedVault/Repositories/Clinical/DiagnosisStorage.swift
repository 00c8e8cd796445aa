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

    /// Inserts one diagnosis given as the `diagnosis` view's columns and values.
    ///
    /// - Throws: The constraint error of a missing required value (`NOT NULL`, of
    ///   either table), a duplicate id or a missing session; nothing is written then
    ///   but, at most, a snapshot row no diagnosis uses yet (the caller's transaction
    ///   rolls it back with the rest).
    static func insert(columns: [String], values: [VaultValue], _ db: DatabaseConnection) throws {
        var snapshot = [VaultValue](repeating: .null, count: snapshotColumns.count)
        var rowColumns: [String] = []
        var rowValues: [VaultValue] = []
        rowColumns.reserveCapacity(columns.count)
        rowValues.reserveCapacity(columns.count)
        for (name, value) in zip(columns, values) {
            if let index = snapshotColumns.firstIndex(of: name) {
                snapshot[index] = value
            } else {
                rowColumns.append(name)
                rowValues.append(value)
            }
        }
        rowColumns.append("snapshot_id")
        rowValues.append(.integer(try snapshotID(snapshot, db)))
        let placeholders = Array(repeating: "?", count: rowColumns.count).joined(separator: ", ")
        try db.execute("INSERT INTO diagnosis_row (\(rowColumns.joined(separator: ", "))) VALUES (\(placeholders))",
                       rowValues)
    }

    /// The id of the stored snapshot with these values (in ``snapshotColumns`` order),
    /// added when no diagnosis recorded it before.
    private static func snapshotID(_ values: [VaultValue], _ db: DatabaseConnection) throws -> Int64 {
        if let id = try db.fetchOne(findSnapshot, values, { $0.int64(at: 0) }) { return id }
        try db.execute(insertSnapshot, values)
        return db.lastInsertedRowID
    }
}
