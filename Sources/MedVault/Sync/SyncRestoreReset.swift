import Foundation
import MedVaultCore

/// What the first unlock after a restore does to a vault that was syncing (docs/sync.md,
/// "After a restore").
///
/// A restored database is this device's database as it was at the backup: its change
/// log ends there, so its next changes reuse local sequences whose envelopes (ids derived
/// from device and sequence) the server may already hold with other content, and the
/// changes it made after the backup and pushed are on the server as its own, which the
/// engine skips. So the restored vault syncs as a new device: a new change-log device id,
/// and no sync device id or token (the app calls `SyncEngine.join()` again). The keyring
/// mark goes too: the backup's keyring may be older than the server's, and with no mark
/// the next sync adopts the server's rather than publishing the backup's password over a
/// newer one. The vault id, the cursors, the outbox and the record clocks stay: pulling
/// from the restored cursor brings back the changes made after the backup, by whatever
/// device, as fast-forwards from the restored versions.
///
/// A vault that never registered or joined is left as it is (its device id kept, as
/// docs/changes.md describes for a restore).
enum SyncRestoreReset {
    /// Runs inside the unlock's write transaction.
    static func afterRestore(_ db: DatabaseConnection) throws {
        let synced = try db.fetchOne("SELECT device_token IS NOT NULL FROM sync_state WHERE singleton = 1") { row in
            row.int64(at: 0) == 1
        } ?? false
        guard synced else { return }
        // The former id's envelopes come back from the server as another device's: the
        // ones sealed before the backup are neither replays nor gaps here.
        try db.execute("""
            INSERT OR REPLACE INTO sync_device_sequence (device, highest, missing, tracked)
            SELECT device_id, 0, '', 0 FROM sync_state WHERE singleton = 1 AND device_id IS NOT NULL
            """)
        try db.execute("INSERT INTO medvault_device (device_id) VALUES (?)", [UUID().vaultValue])
        try db.execute("""
            UPDATE sync_state SET device_id = NULL, device_token = NULL, keyring_generation = 0, keyring_sha256 = NULL,
                device_key = NULL, certified_epoch = NULL
            WHERE singleton = 1
            """)
    }
}
