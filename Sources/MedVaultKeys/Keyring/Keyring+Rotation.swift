import Foundation
import MedVaultCore

/// Database-key rotation, in three crash-safe steps driven by the storage layer:
///
/// 1. ``Keyring/beginningRotation(vaultKey:)`` → write the keyring (the pending key is now durable);
/// 2. export the database into a new file under the pending key (`sqlcipher_export`),
///    verify the copy, and rename it over the database (`DatabaseKeyChange` in MedVault;
///    `PRAGMA rekey` is never used: SQLCipher 3.4 rewrites the file in place and can
///    report success although its commit failed, see `docs/key-rotation.md`);
/// 3. ``Keyring/completingRotation(vaultKey:)`` → write the keyring.
///
/// After a crash between 1 and 3 the database file is whole under exactly one of the two
/// keys: try the current key, and if SQLCipher refuses it, the pending one (then complete
/// the rotation). If the copy or its verification failed, ``Keyring/abandoningRotation(vaultKey:)``.
/// Only the vault key is needed, never a slot's secret. Each step proves the keyring it
/// returns (see `Keyring+Proof.swift`).
extension Keyring {
    /// Starts a rotation: records a new random database key as pending.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write **before** the database is re-encrypted, and the new database key.
    /// - Throws: `MedVaultError.Code.conflict` when a rotation is already pending (resume it with
    ///   ``pendingDatabaseKey(vaultKey:)`` instead); `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func beginningRotation(vaultKey: SecureBytes) throws -> (keyring: Keyring, newDatabaseKey: SecureBytes) {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard wrappedPendingKey == nil else {
            throw MedVaultError(.conflict, field: "rotation", reason: "a database key rotation is already pending")
        }
        let newKey = SecureBytes.random(count: 32)
        let pending = try KeyWrap.seal(
            newKey, under: try KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .pending, generation: databaseKeyGeneration + 1
            )
        )
        let keyring = try with(pending: .some(pending), vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey, expectedPendingKey: newKey)
        return (keyring, newKey)
    }

    /// Finishes a rotation once the re-encrypted copy has replaced the database: the pending key becomes the
    /// current one and ``databaseKeyGeneration`` increases by one.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write.
    /// - Throws: `MedVaultError.Code.invalidArgument` (field `"rotation"`) when no rotation is pending;
    ///   `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func completingRotation(vaultKey: SecureBytes) throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard let wrappedPendingKey else {
            throw MedVaultError(.invalidArgument, field: "rotation", reason: "no database key rotation is pending")
        }
        let newKey = try openPending(wrappedPendingKey, vaultKey: vaultKey)
        defer { newKey.wipe() }
        let generation = databaseKeyGeneration + 1
        let current = try KeyWrap.seal(
            newKey, under: try KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .current, generation: generation
            )
        )
        return try with(generation: generation, current: current, pending: .some(nil), vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey, expectedCurrentKey: newKey)
    }

    /// Drops a pending rotation (when the copy or its verification failed and the database
    /// still uses the current key). Does nothing when none is pending.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The keyring to write.
    /// - Throws: `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func abandoningRotation(vaultKey: SecureBytes) throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard wrappedPendingKey != nil else { return self }
        return try with(pending: .some(nil), vaultKey: vaultKey).proveSound(vaultKey: vaultKey)
    }
}
