import Foundation
import MedVaultCore
import MedVaultKeys

/// Where a vault keeps its sync epoch keys and its device key (migration "sync epochs"):
/// the encrypted database. Package API for the sync engine and ``Vault``; every function
/// runs inside the caller's transaction. Keys go from the row straight into secure memory.
package enum SyncEpochRecord {
    /// Calls `body` with each stored epoch and its key's bytes, in place (valid during the
    /// call only; nothing is copied), in epoch order.
    ///
    /// - Throws: `corrupted` for an epoch out of range or a key of the wrong length.
    static func forEachEpochKey(_ db: DatabaseConnection,
                                _ body: (UInt32, UnsafeRawBufferPointer) throws -> Void) throws {
        try db.forEachRow("SELECT epoch, key FROM sync_epoch_key ORDER BY epoch", []) { row in
            let epoch = row.int64(at: 0)
            guard epoch > 0, epoch <= Int64(UInt32.max) else {
                throw MedVaultError(.corrupted, reason: "a stored sync epoch is out of range")
            }
            try row.withBlob(at: 1) { bytes in
                guard bytes.count == SyncKeys.epochKeyLength else {
                    throw MedVaultError(.corrupted, reason: "a stored sync epoch key has the wrong length")
                }
                try body(UInt32(epoch), bytes)
            }
            return true
        }
    }

    /// Every epoch key this device holds, by epoch (from 1).
    ///
    /// - Throws: `corrupted` for a stored key of the wrong length; storage errors.
    package static func epochKeys(_ db: DatabaseConnection) throws -> [UInt32: SecureBytes] {
        var keys: [UInt32: SecureBytes] = [:]
        try forEachEpochKey(db) { epoch, bytes in keys[epoch] = SecureBytes(copying: bytes) }
        return keys
    }

    /// The newest epoch this device holds a key of; 0 with none.
    package static func currentEpoch(_ db: DatabaseConnection) throws -> UInt32 {
        UInt32(clamping: try db.fetchOne("SELECT max(epoch) FROM sync_epoch_key") { $0.isNull(at: 0) ? 0 : $0.int64(at: 0) } ?? 0)
    }

    /// Stores the keys of `keys`' epochs this device does not hold yet; keeps those it
    /// holds (an epoch's key never changes).
    package static func addEpochKeys(_ keys: [UInt32: SecureBytes], _ db: DatabaseConnection) throws {
        for (epoch, key) in keys where epoch > 0 {
            try db.execute("INSERT OR IGNORE INTO sync_epoch_key (epoch, key) VALUES (?, ?)",
                           [.integer(Int64(epoch)), .blob(Data(try key.withUnsafeBytes { Array($0) }))])
        }
    }

    /// Replaces every epoch key this device holds with `keys` (the vault's, opened with the
    /// recovery kit: authoritative).
    package static func replaceEpochKeys(_ keys: [UInt32: SecureBytes], _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM sync_epoch_key")
        try addEpochKeys(keys, db)
    }

    /// This device's key, or `nil` before it made one.
    package static func deviceKey(_ db: DatabaseConnection) throws -> SyncDeviceKey? {
        try db.fetchOne("SELECT device_key FROM sync_state WHERE singleton = 1") { row in
            row.isNull(at: 0) ? nil : try row.withBlob(at: 0) { try SyncDeviceKey(storedBytes: $0) }
        } ?? nil
    }

    /// This device's key, made and stored now if it has none.
    package static func deviceKeyCreatingIfNeeded(_ db: DatabaseConnection) throws -> SyncDeviceKey {
        if let key = try deviceKey(db) { return key }
        let key = SyncDeviceKey.generate()
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
        try db.execute("UPDATE sync_state SET device_key = ? WHERE singleton = 1", [.blob(Data(try key.storedBytes()))])
        return key
    }

    /// The highest epoch of an envelope applied here (0 before any).
    package static func pulledEpoch(_ db: DatabaseConnection) throws -> UInt32 {
        UInt32(clamping: try db.fetchOne("SELECT pulled_epoch FROM sync_state WHERE singleton = 1") { $0.int64(at: 0) } ?? 0)
    }

    /// Raises ``pulledEpoch(_:)`` to `epoch`; never lowers it.
    package static func raisePulledEpoch(to epoch: UInt32, _ db: DatabaseConnection) throws {
        try db.execute("UPDATE sync_state SET pulled_epoch = max(pulled_epoch, ?) WHERE singleton = 1",
                       [.integer(Int64(epoch))])
    }

    /// A new key for this device, replacing any (a join under a new device id): stored,
    /// and the certified epoch forgotten.
    package static func renewDeviceKey(_ db: DatabaseConnection) throws -> SyncDeviceKey {
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
        try db.execute("UPDATE sync_state SET device_key = NULL, certified_epoch = NULL WHERE singleton = 1")
        return try deviceKeyCreatingIfNeeded(db)
    }

    /// The vault's first epoch: 1 when it was born with epochs, 0 otherwise.
    package static func firstEpoch(_ db: DatabaseConnection) throws -> UInt32 {
        UInt32(clamping: try db.fetchOne("SELECT first_epoch FROM sync_state WHERE singleton = 1") { $0.int64(at: 0) } ?? 0)
    }

    /// Records the vault's first epoch (at register, or from the epoch keys at a join).
    package static func setFirstEpoch(_ epoch: UInt32, _ db: DatabaseConnection) throws {
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
        try db.execute("UPDATE sync_state SET first_epoch = ? WHERE singleton = 1", [.integer(Int64(epoch))])
    }

    /// The epoch whose certificate of this device the server holds, or `nil`.
    package static func certifiedEpoch(_ db: DatabaseConnection) throws -> UInt32? {
        try db.fetchOne("SELECT certified_epoch FROM sync_state WHERE singleton = 1") { row in
            row.isNull(at: 0) ? nil : UInt32(clamping: row.int64(at: 0))
        } ?? nil
    }

    /// Records that the server holds this device's certificate of `epoch`.
    package static func setCertifiedEpoch(_ epoch: UInt32?, _ db: DatabaseConnection) throws {
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
        try db.execute("UPDATE sync_state SET certified_epoch = ? WHERE singleton = 1",
                       [epoch.map { .integer(Int64($0)) } ?? .null])
    }
}
