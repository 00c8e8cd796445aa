import Foundation
import MedVaultCore
import MedVaultKeys

/// Where a vault keeps its sync secret and the keyring publication counter (migration
/// "sync secret"): the encrypted database's `sync_state` row. Package API, shared by
/// `Vault.join` and the sync engine, so the SQL lives in one place. Every function runs
/// inside the caller's transaction.
package enum SyncSecretRecord {
    /// The sync secret this device holds, or `nil` before it registered, joined or was
    /// given the secret.
    ///
    /// - Throws: `corrupted` for a stored value of the wrong length; storage errors.
    package static func secret(_ db: DatabaseConnection) throws -> SyncSecret? {
        let stored = try db.fetchOne("SELECT sync_secret FROM sync_state WHERE singleton = 1") { row in
            row.isNull(at: 0) ? nil : row.blob(at: 0)
        }
        guard let stored, let bytes = stored else { return nil }
        return try SyncSecret(storedBytes: Array(bytes))
    }

    /// Stores `secret` (replacing any).
    package static func setSecret(_ secret: SyncSecret, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET sync_secret = ? WHERE singleton = 1", [.blob(Data(try secret.storedBytes()))])
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
