/// Migration "sync outbox without an id index": the outbox keeps its envelopes in push
/// order, by positions never given twice, and no index of their ids (issue #36, item 2).
///
/// `sync_outbox.envelope_id` carried a `UNIQUE` constraint, so an index of the envelope
/// ids, which are HMAC outputs: every step of a first seal inserted 1,000 random keys into
/// it, and every acknowledgement deleted 500, dirtying most of its pages each time. For a
/// full clinic's first push that index was about 1.4 GB of the device's 3.4 GB of writes
/// (encrypted pages into the WAL, copied again by the checkpoint), and its removal took
/// the push from 45.5 s to 34.9 s (docs/benchmarks-method.md).
///
/// No statement looks an envelope up by id: the push reads by position, an
/// acknowledgement deletes by position (checking the id), a re-seal reads by position
/// and epoch. The ids are unique by construction (derived from the device and the
/// sequence of the change, chunk, resend or re-seal they carry), and the server answers a
/// push that names one id twice with one sequence, or refuses it when the two differ.
///
/// Positions become `AUTOINCREMENT`: never given twice, also after acknowledgements
/// emptied the outbox. Before, a row sealed into an emptied outbox took position 1 again,
/// so a push loop reading "after the last position it pushed" could, with a slow read,
/// send a later step's rows before an earlier step's (a child before its parent) while
/// the seal ran beside the push. Now positions are the seal order, always.
///
/// `AUTOINCREMENT` costs SQLite 3.15 a write of `sqlite_sequence` after each statement that
/// could insert into the table (why the change log and the audit trail do without it):
/// here one per outbox statement of up to 64 envelopes, next to those envelopes' pages.
///
/// The table is rebuilt as SQLite's documentation orders it (a new table, the rows copied
/// in position order, the old one dropped, the new one renamed, with the legacy rename),
/// so views, and triggers on other tables, that name `sync_outbox` keep working; an index
/// or trigger an app made on the table itself is dropped with it and not made again.
/// `sync_outbox_by_epoch` is made again. The copy takes as much free space as the outbox
/// (sealed envelopes not yet acknowledged). Not change-logged, not synced, no trigger.
/// Frozen: its SQL is a literal.
enum SyncOutboxSchema {
    static func dropIDIndex(_ db: DatabaseConnection) throws {
        // SQLite 3.26 and later check every view and trigger when a table is renamed, and
        // one that names the dropped `sync_outbox` would stop the rename (and the vault's
        // open); the legacy rename, which this documented rebuild expects, does not check.
        // SQLite 3.15 (SQLCipher 3.4) has no such check and no such pragma, and ignores it.
        try db.executeScript("PRAGMA legacy_alter_table = ON;")
        defer { try? db.executeScript("PRAGMA legacy_alter_table = OFF;") }
        try db.executeScript("""
            CREATE TABLE sync_outbox_rebuilt (
                position INTEGER PRIMARY KEY AUTOINCREMENT,
                envelope_id BLOB NOT NULL CHECK (length(envelope_id) = 16),
                record_key BLOB NOT NULL,
                ciphertext BLOB NOT NULL,
                epoch INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0)
            );
            INSERT INTO sync_outbox_rebuilt (position, envelope_id, record_key, ciphertext, epoch)
                SELECT position, envelope_id, record_key, ciphertext, epoch FROM sync_outbox ORDER BY position;
            DROP TABLE sync_outbox;
            ALTER TABLE sync_outbox_rebuilt RENAME TO sync_outbox;
            CREATE INDEX sync_outbox_by_epoch ON sync_outbox (epoch);
            """)
    }
}
