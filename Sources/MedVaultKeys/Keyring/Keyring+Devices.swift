import Foundation
import MedVaultCore

/// The keyrings of a vault's devices (sync).
///
/// Every device of a vault holds the same **vault key**, sealed in the same password and
/// recovery slots, but a **database key of its own**: its local database is its own file,
/// and stealing one device's database key opens no other device's database. A device's
/// platform slots (its own secret store) stay on that device. So a keyring another device
/// published shares only its password and recovery slots.
extension Keyring {
    /// The keyring of a new device joining the vault: this keyring's password and
    /// recovery slots (the same vault key), a new random database key of the device's
    /// own at generation 1, and no platform slot (another device's secret store is not
    /// this one's).
    ///
    /// - Parameter vaultKey: The vault key, unlocked from this keyring.
    /// - Returns: The new keyring (proved sound) and its database key.
    /// - Throws: `wrongKey` for another vault key; `corrupted` for an altered keyring.
    package func forNewDevice(vaultKey: SecureBytes) throws -> (keyring: Keyring, databaseKey: SecureBytes) {
        try databaseKey(vaultKey: vaultKey).wipe()
        let newKey = SecureBytes.random(count: 32)
        do {
            let current = try KeyWrap.seal(
                newKey, under: try KeyWrap.key(vaultKey),
                associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .current, generation: 1))
            let keyring = try Self.assemble(
                vaultID: vaultID, cipherSettings: cipherSettings, slots: slots.filter { $0.kind != .platform },
                generation: 1, current: current, pending: nil, vaultKey: vaultKey
            ).proveSound(vaultKey: vaultKey, expectedCurrentKey: newKey)
            return (keyring, newKey)
        } catch {
            newKey.wipe()
            throw error
        }
    }

    /// This device's keyring with the password and recovery slots of `other`, a keyring
    /// another device of the vault published (after a password change or a new recovery
    /// key there), keeping this device's platform slots and database keys.
    ///
    /// - Parameters:
    ///   - other: The published keyring; it must be this vault's and authenticate under `vaultKey`.
    ///   - vaultKey: The vault key.
    /// - Returns: `self` when the shared slots are already the same; otherwise the merged
    ///   keyring, proved sound.
    /// - Throws: `corrupted` when `other` is another vault's or does not authenticate;
    ///   `wrongKey` for another vault key; `invalidArgument` when the merge would exceed
    ///   the slot limit or hold no password slot.
    package func mergingSharedSlots(of other: Keyring, vaultKey: SecureBytes) throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard other.vaultID == vaultID else {
            throw MedVaultError(.corrupted, reason: "the published keyring belongs to another vault")
        }
        try other.verifyAuthenticationTag(vaultKey: vaultKey)
        let merged = other.slots.filter { $0.kind != .platform } + slots.filter { $0.kind == .platform }
        guard merged.count <= KeyringCodec.maximumSlots, merged.contains(where: { $0.kind == .password }) else {
            throw MedVaultError(.invalidArgument, field: "slot",
                                reason: "the published keyring's slots cannot be merged into this device's")
        }
        if merged == slots { return self }
        return try with(slots: merged, pending: .none, vaultKey: vaultKey).proveSound(vaultKey: vaultKey)
    }

    /// SHA-256 of the slots every device shares (password and recovery, in order):
    /// what tells a password change or a new recovery key apart from a change that stays
    /// on one device (a database-key rotation, a platform slot).
    package var sharedSlotsDigest: Data {
        Data(SHA256Digest.of(Data(KeyringCodec.encoded(slots.filter { $0.kind != .platform }))).bytes)
    }
}
