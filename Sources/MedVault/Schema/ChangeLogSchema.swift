/// Migration "change log": the `medvault_change` table and the vault database's
/// device id in `medvault_metadata`.
///
/// Entries are appended by the repositories, in Swift, in the transaction of the
/// change they record (`ChangeLogWriter`), not by triggers: a table with an `INSERT`
/// trigger makes SQLite journal every page an insert modifies in a statement journal,
/// which SQLCipher encrypts (bulk inserts ran about 3× slower; see `InsertCheckSchema`).
/// So this migration creates no trigger and no secondary index.
///
/// - `seq` is the rowid (`INTEGER PRIMARY KEY`, max + 1): strictly increasing, and
///   without gaps since a rolled-back insert leaves nothing. Not `AUTOINCREMENT`: SQLite
///   3.15 rewrites `sqlite_sequence` at the end of every statement that could insert
///   into such a table, even one that changed nothing. Pruning keeps the newest entry
///   instead, so the maximum is never reused.
/// - `hlc` is a hybrid logical clock value computed by the writer (`HybridClock`).
/// - The device id is 16 random bytes drawn once, here.
///
/// A vault created before this migration gets an empty log: its earlier history is
/// not in it.
///
/// Frozen, like every released migration.
enum ChangeLogSchema {
    static func createChangeLog(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE medvault_metadata (
                key TEXT PRIMARY KEY NOT NULL,
                value NOT NULL
            );
            INSERT INTO medvault_metadata (key, value) VALUES ('device_id', randomblob(16));
            CREATE TABLE medvault_change (
                seq INTEGER PRIMARY KEY,
                table_name TEXT NOT NULL,
                record_id BLOB NOT NULL,
                operation TEXT NOT NULL,
                version INTEGER,
                hlc INTEGER NOT NULL,
                device_id BLOB NOT NULL
            );
            """)
    }
}
