import Foundation
import MedVaultCore

/// Database-key rotation, in three crash-safe steps driven by the storage layer:
///
/// 1. ``Keyring/beginningRotation(vaultKey:)`` → write the keyring (the pending key is now durable);
/// 2. `PRAGMA rekey` the database to the pending key;
/// 3. ``Keyring/completingRotation(vaultKey:)`` → write the keyring.
///
/// After a crash between 1 and 3 the database opens with either the current or the
/// pending key: try the current key, and if SQLCipher refuses it, the pending one (then
/// complete the rotation). Only the vault key is needed, never a slot's secret.
extension Keyring {
    /// Starts a rotation: records a new random database key as pending.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write **before** rekeying, and the new database key.
    /// - Throws: `MedVaultError.Code.conflict` when a rotation is already pending (resume it with
    ///   ``pendingDatabaseKey(vaultKey:)`` instead); `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func beginningRotation(vaultKey: SecureBytes) throws -> (keyring: Keyring, newDatabaseKey: SecureBytes) {
        _ = try databaseKey(vaultKey: vaultKey)
        guard wrappedPendingKey == nil else {
            throw MedVaultError(.conflict, field: "rotation", reason: "a database key rotation is already pending")
        }
        let newKey = SecureBytes.random(count: 32)
        let pending = try KeyWrap.seal(
            newKey, under: KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(
                formatVersion: formatVersion, vaultID: vaultID, role: .pending, generation: databaseKeyGeneration + 1
            )
        )
        return (with(pending: .some(pending), vaultKey: vaultKey), newKey)
    }

    /// Finishes a rotation once the database has been rekeyed: the pending key becomes the
    /// current one and ``databaseKeyGeneration`` increases by one.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write.
    /// - Throws: `MedVaultError.Code.invalidArgument` (field `"rotation"`) when no rotation is pending;
    ///   `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func completingRotation(vaultKey: SecureBytes) throws -> Keyring {
        _ = try databaseKey(vaultKey: vaultKey)
        guard let wrappedPendingKey else {
            throw MedVaultError(.invalidArgument, field: "rotation", reason: "no database key rotation is pending")
        }
        let newKey = try openPending(wrappedPendingKey, vaultKey: vaultKey)
        let generation = databaseKeyGeneration + 1
        let current = try KeyWrap.seal(
            newKey, under: KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(
                formatVersion: formatVersion, vaultID: vaultID, role: .current, generation: generation
            )
        )
        return with(generation: generation, current: current, pending: .some(nil), vaultKey: vaultKey)
    }

    /// Drops a pending rotation (when the rekey failed and the database still uses the
    /// current key). Does nothing when none is pending.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write.
    /// - Throws: `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func abandoningRotation(vaultKey: SecureBytes) throws -> Keyring {
        _ = try databaseKey(vaultKey: vaultKey)
        guard wrappedPendingKey != nil else { return self }
        return with(pending: .some(nil), vaultKey: vaultKey)
    }
}
