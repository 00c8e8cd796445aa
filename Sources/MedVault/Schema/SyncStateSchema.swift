/// Migration "sync state" (issue #16): what the sync engine (module MedVaultSync) keeps
/// in the vault's encrypted database, beside the records it syncs.
///
/// - `sync_state`: one row — the vault and device ids registered at the server, the
///   device token (a secret: it stays in this encrypted file), `sealed_through` (the
///   change-log sequence up to which local changes were sealed into the outbox or were
///   written by applying remote changes) and `pulled_through` (the server sequence of
///   the last applied envelope), and the keyring generation and SHA-256 last published
///   or adopted (a password change here is published; one made elsewhere is adopted).
/// - `sync_outbox`: sealed envelopes not yet acknowledged by the server, in push order.
///   A push that crashed or lost its answer resends the same bytes: idempotent.
/// - `sync_record_clock`: per record, the hybrid-logical-clock stamp (and device) of
///   the version this database holds, as far as sync knows it: the conflict order.
/// - `sync_conflict`: the losing versions of concurrent changes and the remote changes
///   the medical-record rules refused, until the app resolves them.
///
/// None of these tables is change-logged or synced, and none has an INSERT trigger.
/// Frozen: its SQL is a literal.
enum SyncStateSchema {
    static func createSyncState(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE sync_state (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                vault_id BLOB CHECK (vault_id IS NULL OR length(vault_id) = 16),
                device_id BLOB CHECK (device_id IS NULL OR length(device_id) = 16),
                device_token TEXT,
                sealed_through INTEGER NOT NULL DEFAULT 0,
                pulled_through INTEGER NOT NULL DEFAULT 0,
                keyring_generation INTEGER NOT NULL DEFAULT 0,
                keyring_sha256 BLOB
            );
            CREATE TABLE sync_outbox (
                position INTEGER PRIMARY KEY,
                envelope_id BLOB NOT NULL UNIQUE CHECK (length(envelope_id) = 16),
                record_key BLOB NOT NULL,
                ciphertext BLOB NOT NULL
            );
            CREATE TABLE sync_record_clock (
                table_name TEXT NOT NULL,
                record_id BLOB NOT NULL,
                hlc INTEGER NOT NULL,
                device_id BLOB NOT NULL,
                PRIMARY KEY (table_name, record_id)
            ) WITHOUT ROWID;
            CREATE TABLE sync_conflict (
                id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
                kind TEXT NOT NULL,
                table_name TEXT NOT NULL,
                record_id BLOB NOT NULL,
                loser_hlc INTEGER NOT NULL,
                loser_device BLOB NOT NULL,
                loser_is_local INTEGER NOT NULL,
                loser_state BLOB,
                winner_hlc INTEGER NOT NULL,
                winner_device BLOB NOT NULL,
                detected_at INTEGER NOT NULL,
                resolved_at INTEGER,
                UNIQUE (table_name, record_id, loser_hlc, loser_device)
            );
            """)
    }
}
