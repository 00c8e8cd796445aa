/// Migration "audit trail": the table `medvault_audit` (docs/audit.md).
///
/// - `seq` is the rowid (`INTEGER PRIMARY KEY`), assigned by the writer contiguously
///   from 1 (`max + 1`, never `AUTOINCREMENT`: see ``ChangeLogSchema``). The chain's
///   MAC covers it, so a gap or a renumbering is detected.
/// - `time` is Unix milliseconds; `device` the rowid of `medvault_device`; `actor` the
///   16-byte id of the vault's professional when one was saved, else `NULL`.
/// - `action` is an integer code (`AuditCodes`), or the name of an app's own operation;
///   `entity_table` a `ChangeLogCodes` table code or an app table's name, `NULL` for a
///   vault-wide event (a backup, an unlock); `entity_id` the record's 16-byte id.
/// - `mac` is HMAC-SHA256 under the audit key of the previous entry's mac and this
///   entry's canonical bytes (`AuditChain`).
///
/// No field value is ever stored. Entries are written in Swift by the writer of the
/// change log (no `INSERT` trigger: see ``InsertCheckSchema``). `UPDATE` and `DELETE`
/// triggers refuse any change to an entry (they cost inserts nothing): the trail is
/// append-only for every client of the library; an attacker with the database key can
/// drop them, which the chain then catches.
///
/// Frozen, like every released migration.
enum AuditSchema {
    static func createAuditTrail(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE medvault_audit (
                seq INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                device INTEGER NOT NULL,
                actor BLOB,
                action NOT NULL,
                entity_table,
                entity_id BLOB,
                mac BLOB NOT NULL
            );
            CREATE TRIGGER medvault_audit_no_update BEFORE UPDATE ON medvault_audit
            BEGIN SELECT RAISE(ABORT, 'medvault_audit is append-only'); END;
            CREATE TRIGGER medvault_audit_no_delete BEFORE DELETE ON medvault_audit
            BEGIN SELECT RAISE(ABORT, 'medvault_audit is append-only'); END;
            """)
    }

    /// Migration "audit origin" (issue #31): `origin`, the 16-byte change-log device id of
    /// the device whose change an entry records when it arrived through sync, `NULL` for a
    /// change made on this device and for every event. The chain covers it when it is set
    /// (`AuditChain`), so entries written before keep their MACs. Frozen.
    static func addOrigin(_ db: DatabaseConnection) throws {
        try db.executeScript("ALTER TABLE medvault_audit ADD COLUMN origin BLOB;")
    }
}
