/// Migration "sync device sequences": per device, the sequence numbers its envelopes
/// carry inside their sealed content (docs/sync.md, "Sequence numbers").
///
/// `sync_device_sequence`, by sync device id: for this device, `highest` is the last
/// number it sealed; for another, the highest it received, and `missing` the numbers
/// below it not received yet, as comma-separated ranges `first-last` (a withheld or
/// dropped envelope; one arriving later fills its gap, one arriving again is a replay).
/// `tracked` = 0 for this device's own former id after a restore (its envelopes come back
/// from the server as another device's, and are neither gaps nor replays).
///
/// `sync_state.numbered_from`: the pull cursor when this migration ran. Above 0, this
/// device applied envelopes before it kept numbers (an upgrade, a restore of an older
/// backup): the first number it then meets of a device is taken as where that device's
/// count starts here, not as a gap after numbers it applied uncounted.
///
/// Not change-logged, not synced, no trigger. Frozen: its SQL is a literal.
enum SyncDeviceSequenceSchema {
    static func createDeviceSequences(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE sync_state ADD COLUMN numbered_from INTEGER NOT NULL DEFAULT 0;
            UPDATE sync_state SET numbered_from = pulled_through;
            CREATE TABLE sync_device_sequence (
                device BLOB PRIMARY KEY CHECK (length(device) = 16),
                highest INTEGER NOT NULL CHECK (highest >= 0),
                missing TEXT NOT NULL DEFAULT '',
                tracked INTEGER NOT NULL DEFAULT 1 CHECK (tracked IN (0, 1))
            ) WITHOUT ROWID;
            """)
    }
}
