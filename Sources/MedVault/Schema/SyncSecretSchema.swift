/// Migration "sync secret" (issue #31): the vault's sync secret and the keyring
/// publication counter, in the one `sync_state` row.
///
/// - `sync_secret`: the 16 bytes of `SyncSecret` (module MedVaultKeys) that seal the
///   keyring this device publishes; it never leaves the devices except as the recovery
///   kit. `NULL` until the device registers, joins, upgrades or is given it.
/// - `sync_secret_confirmed`: 1 once the secret is known to be the vault's: a keyring
///   sealed under it was published, or the server's keyring opened with it. Until then
///   it is not shown for the recovery kit, nor used to seal over a keyring it does not
///   open.
/// - `keyring_counter`: the highest sealed-keyring counter this device published or
///   adopted; a keyring the server serves with a counter not past it is not adopted.
/// - `sealed_keyring_seen`: 1 once this device met a sealed keyring at the server: from
///   then on it never takes a keyring in the clear (the upgrade path is for devices that
///   never saw one).
///
/// Frozen: its SQL is a literal.
enum SyncSecretSchema {
    static func addSyncSecret(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE sync_state ADD COLUMN sync_secret BLOB CHECK (sync_secret IS NULL OR length(sync_secret) = 16);
            ALTER TABLE sync_state ADD COLUMN sync_secret_confirmed INTEGER NOT NULL DEFAULT 0 CHECK (sync_secret_confirmed IN (0, 1));
            ALTER TABLE sync_state ADD COLUMN keyring_counter INTEGER NOT NULL DEFAULT 0 CHECK (keyring_counter >= 0);
            ALTER TABLE sync_state ADD COLUMN sealed_keyring_seen INTEGER NOT NULL DEFAULT 0 CHECK (sealed_keyring_seen IN (0, 1));
            """)
    }
}
