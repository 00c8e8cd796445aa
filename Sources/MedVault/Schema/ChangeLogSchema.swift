/// Migration "change log": the `medvault_change` table, the vault database's device id
/// in `medvault_device`, and `medvault_metadata` (the pruning mark).
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
/// - `table_name` and `operation` have no type: MedVault's tables and operations are
///   stored as one-byte integer codes, an app's as text (`ChangeLogCodes`).
/// - `hlc` is a hybrid logical clock value computed by the writer (`HybridClock`).
/// - `device` is the rowid of the writing device in `medvault_device` (its 16-byte random
///   id): one byte per entry instead of sixteen. Bulk inserts pay for every byte the log
///   adds (each page is encrypted), and the id was a fifth of an entry. The newest row of
///   `medvault_device` is the current device: drawn here, renewed by
///   `Vault.renewChangeLogDeviceID()`; the writer never adds one while appending.
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
            CREATE TABLE medvault_device (
                id INTEGER PRIMARY KEY,
                device_id BLOB NOT NULL UNIQUE
            );
            INSERT INTO medvault_device (device_id) VALUES (randomblob(16));
            CREATE TABLE medvault_change (
                seq INTEGER PRIMARY KEY,
                table_name NOT NULL,
                record_id BLOB NOT NULL,
                operation NOT NULL,
                version INTEGER,
                hlc INTEGER NOT NULL,
                device INTEGER NOT NULL
            );
            """)
    }
}
