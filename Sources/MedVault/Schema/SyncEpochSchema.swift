/// Migration "sync epochs" (issue #31): the keys of the vault's sync epochs and this
/// device's own key (docs/sync.md, "Epochs").
///
/// - `sync_epoch_key`: each epoch's random key this device holds (epochs from 1; epoch 0's
///   keys derive from the vault key and are not stored). A device started an epoch, or
///   was given its key sealed to its device key by the device that did, or opened it with
///   the recovery kit.
/// - `sync_state.device_key`: the 32-byte seed of this device's signing and box keys
///   (`SyncDeviceKey`), made at its first sync of this version; never sent.
/// - `sync_outbox.epoch`: the epoch an outbox envelope was sealed in (0 for those sealed
///   before this migration).
/// - `sync_state.pulled_epoch`: the highest epoch of an envelope applied here. The server
///   refuses new envelopes of an epoch the vault has left, so along the server's
///   sequence epochs never go down: an envelope of a lower epoch after it is refused.
/// - `sync_state.first_epoch`: 1 for a vault born with epochs (registered by this version):
///   no envelope of epoch 0 is its (one sealed with keys derived from the vault key alone is
///   forged, and refused); 0 for a vault registered before epochs.
/// - `sync_outbox_by_epoch`: finds envelopes of an earlier epoch to re-seal without reading
///   their ciphertexts.
/// - `sync_state.certified_epoch`: the epoch whose certificate of this device's keys the
///   server holds; `NULL` before one was accepted.
///
/// Not change-logged, not synced. Frozen: its SQL is a literal.
enum SyncEpochSchema {
    static func createEpochs(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE sync_epoch_key (
                epoch INTEGER PRIMARY KEY CHECK (epoch > 0),
                key BLOB NOT NULL CHECK (length(key) = 32)
            );
            ALTER TABLE sync_state ADD COLUMN device_key BLOB CHECK (device_key IS NULL OR length(device_key) = 32);
            ALTER TABLE sync_outbox ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0);
            ALTER TABLE sync_state ADD COLUMN pulled_epoch INTEGER NOT NULL DEFAULT 0 CHECK (pulled_epoch >= 0);
            ALTER TABLE sync_state ADD COLUMN first_epoch INTEGER NOT NULL DEFAULT 0 CHECK (first_epoch IN (0, 1));
            CREATE INDEX sync_outbox_by_epoch ON sync_outbox (epoch);
            ALTER TABLE sync_state ADD COLUMN certified_epoch INTEGER CHECK (certified_epoch IS NULL OR certified_epoch >= 0);
            """)
    }
}
