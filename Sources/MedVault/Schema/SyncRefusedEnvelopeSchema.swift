/// Migration "sync refused envelopes": the envelopes a sync refused, kept until the app
/// dismisses them (`SyncEngine.refusedEnvelopes()` in MedVaultSync).
///
/// - `sync_refused_envelope`: per refused envelope, its server sequence (the key: a
///   sequence refused again after a re-pull replaces its row), its id, the error code
///   and the fixed reason (never a field value), and when it was refused. A row is
///   written in the transaction that moves the pull cursor past its envelope, so a
///   refusal is never lost, even when a later step of the same sync throws and its
///   `SyncResult` never reaches the app.
///
/// Not change-logged, not synced, no trigger. Frozen: its SQL is a literal.
enum SyncRefusedEnvelopeSchema {
    static func createRefusedEnvelopes(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE sync_refused_envelope (
                sequence INTEGER PRIMARY KEY CHECK (sequence > 0),
                envelope_id BLOB NOT NULL CHECK (length(envelope_id) = 16),
                code TEXT NOT NULL,
                reason TEXT NOT NULL,
                refused_at INTEGER NOT NULL
            );
            """)
    }
}
