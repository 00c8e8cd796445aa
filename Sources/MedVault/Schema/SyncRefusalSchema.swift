/// Migration "sync refusals": what a sync could not take or could not send, kept until
/// the app sees it (`SyncEngine.refusedEnvelopes()` and `unsentRecords()` in MedVaultSync).
///
/// - `sync_refused_envelope`: per refused envelope, its server sequence (the key: a
///   sequence refused again after a re-pull replaces its row), its id, the error code
///   and the fixed reason (never a field value), and when it was refused. A row is
///   written in the transaction that moves the pull cursor past its envelope, so a
///   refusal is never lost, even when a later step of the same sync throws and its
///   `SyncResult` never reaches the app.
/// - `sync_unsent_record`: this device's records too large for one sync envelope (1 MiB
///   sealed; long texts are limited in characters, not bytes), by table and id: the
///   change-log sequence of the latest change not sent, the code and the fixed reason.
///   The row goes when a later change of the record is sealed.
///
/// Not change-logged, not synced, no trigger. Frozen: its SQL is a literal.
enum SyncRefusalSchema {
    static func createRefusals(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE sync_refused_envelope (
                sequence INTEGER PRIMARY KEY CHECK (sequence > 0),
                envelope_id BLOB NOT NULL CHECK (length(envelope_id) = 16),
                code TEXT NOT NULL,
                reason TEXT NOT NULL,
                refused_at INTEGER NOT NULL
            );
            CREATE TABLE sync_unsent_record (
                table_name TEXT NOT NULL,
                record_id BLOB NOT NULL CHECK (length(record_id) = 16),
                sequence INTEGER NOT NULL,
                code TEXT NOT NULL,
                reason TEXT NOT NULL,
                PRIMARY KEY (table_name, record_id)
            ) WITHOUT ROWID;
            """)
    }
}
