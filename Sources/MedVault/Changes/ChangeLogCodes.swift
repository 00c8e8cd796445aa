/// The one-byte codes the change log stores for MedVault's own tables and operations.
///
/// `medvault_change.table_name` and `.operation` have no type affinity: an entry of a
/// MedVault record table stores the table's code (an integer) and an app table its name
/// (text); likewise a built-in operation its code and an app's own operation its name.
/// App names are plain identifiers, never all digits, so the two cannot be confused.
/// Why: every byte an entry adds is an encrypted page byte of bulk inserts (W1); the
/// names were a quarter of an entry. The codes are part of the file format: frozen.
enum ChangeLogCodes {
    /// Declared with each table in `RecordTableRegistry`.
    static let tables = Dictionary(uniqueKeysWithValues: RecordTableRegistry.recordTables.map { ($0.table, $0.changeLogCode) })
    static let operations: [ChangeOperation: Int64] = [
        .insert: 1, .update: 2, .deactivate: 3, .reactivate: 4, .cancel: 5, .delete: 6,
    ]
    private static let tableNames = Dictionary(uniqueKeysWithValues: tables.map { ($0.value, $0.key) })
    private static let operationNames = Dictionary(uniqueKeysWithValues: operations.map { ($0.value, $0.key) })

    /// What the log stores for `table`.
    static func stored(_ table: VaultTable) -> VaultValue {
        tables[table].map(VaultValue.integer) ?? .text(table.rawValue)
    }

    /// What the log stores for `operation`.
    static func stored(_ operation: ChangeOperation) -> VaultValue {
        operations[operation].map(VaultValue.integer) ?? .text(operation.rawValue)
    }

    /// The table of a stored value, read as text (a code reads as its digits).
    static func table(_ stored: String) -> VaultTable {
        Int64(stored).flatMap { tableNames[$0] } ?? VaultTable(stored)
    }

    /// The operation of a stored value, read as text.
    static func operation(_ stored: String) -> ChangeOperation {
        Int64(stored).flatMap { operationNames[$0] } ?? ChangeOperation(rawValue: stored)
    }
}
