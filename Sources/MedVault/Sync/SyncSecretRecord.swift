import Foundation
import MedVaultCore
import MedVaultKeys

/// Where a vault keeps its sync secret and the keyring publication counter (migration
/// "sync secret"): the encrypted database's `sync_state` row. Package API, shared by
/// `Vault.join` and the sync engine, so the SQL lives in one place. Every function runs
/// inside the caller's transaction.
package enum SyncSecretRecord {
    /// The sync secret this device holds and whether it is confirmed as the vault's (see
    /// `SyncSecretSchema`), or `nil` before it registered, joined or was given one. The
    /// bytes go from the row straight into secure memory.
    ///
    /// - Throws: `corrupted` for a stored value of the wrong length; storage errors.
    package static func secret(_ db: DatabaseConnection) throws -> (secret: SyncSecret, confirmed: Bool)? {
        try db.fetchOne("SELECT sync_secret, sync_secret_confirmed FROM sync_state WHERE singleton = 1") { row in
            guard !row.isNull(at: 0) else { return nil }
            let secret = try row.withBlob(at: 0) { try SyncSecret(storedBytes: $0) }
            return (secret, row.int64(at: 1) == 1)
        } ?? nil
    }

    /// Stores `secret` (replacing any) and whether it is confirmed. Binding it makes
    /// ordinary copies of its 16 bytes (an array, a `Data`, SQLite's), not wiped: at
    /// register, join and adoption only; every sync reads it straight into secure memory.
    package static func setSecret(_ secret: SyncSecret, confirmed: Bool, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET sync_secret = ?, sync_secret_confirmed = ? WHERE singleton = 1",
                       [.blob(Data(try secret.storedBytes())), .integer(confirmed ? 1 : 0)])
    }

    /// Marks the stored secret as the vault's, if it is still `secret`.
    package static func confirm(_ secret: SyncSecret, _ db: DatabaseConnection) throws {
        guard let stored = try self.secret(db), stored.secret == secret, !stored.confirmed else { return }
        try db.execute("UPDATE sync_state SET sync_secret_confirmed = 1 WHERE singleton = 1")
    }

    /// Whether this device met a sealed keyring at the server (then it never takes one in the clear).
    package static func sealedKeyringSeen(_ db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT sealed_keyring_seen FROM sync_state WHERE singleton = 1") { row in row.int64(at: 0) == 1 } ?? false
    }

    /// Records that this device met a sealed keyring at the server.
    package static func setSealedKeyringSeen(_ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET sealed_keyring_seen = 1 WHERE singleton = 1 AND sealed_keyring_seen = 0")
    }

    /// The highest sealed-keyring counter published or adopted here (0 before).
    package static func keyringCounter(_ db: DatabaseConnection) throws -> UInt64 {
        let value = try db.fetchOne("SELECT keyring_counter FROM sync_state WHERE singleton = 1") { row in row.int64(at: 0) }
        return UInt64(clamping: value ?? 0)
    }

    /// Raises the counter to `counter`; never lowers it.
    package static func raiseKeyringCounter(to counter: UInt64, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET keyring_counter = max(keyring_counter, ?) WHERE singleton = 1",
                       [.integer(Int64(clamping: counter))])
    }

    private static func ensureRow(_ db: DatabaseConnection) throws {
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
    }
}
