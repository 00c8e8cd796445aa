import Foundation
import MedVaultCore

extension Keyring {
    /// Replaces every password slot with one for `newPassword`. The vault key, the recovery
    /// key, platform slots and the database key do not change.
    ///
    /// For example:
    ///
    /// ```swift
    /// let vaultKey = try keyring.unlock(password: old)
    /// let updated = try keyring.replacingPassword(try Password("new one"), vaultKey: vaultKey)
    /// try KeyringFile.write(updated, to: keyringURL)
    /// ```
    ///
    /// - Parameters:
    ///   - newPassword: The new password.
    ///   - vaultKey: The vault key from an unlock.
    ///   - kdf: Argon2id parameters for the new slot.
    /// - Returns: The updated keyring; write it to make the change durable.
    /// - Throws: `MedVaultError.Code.wrongKey` when `vaultKey` is not this vault's;
    ///   `MedVaultError.Code.invalidArgument` for weak parameters.
    public func replacingPassword(
        _ newPassword: Password, vaultKey: SecureBytes, kdf: Argon2Parameters = .recommended
    ) throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        let made = try Self.makePasswordSlot(newPassword, kdf: kdf, vaultID: vaultID, vaultKey: vaultKey)
        var updated = slots.filter { $0.kind != .password }
        updated.insert(made.slot, at: 0)
        return try with(slots: updated, pending: .none, vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey, newSlot: SlotProof(id: made.slot.id, kek: made.kek))
    }

    /// Replaces the recovery slot (or adds one) with a new random recovery key; the old
    /// recovery key stops working once the result is written.
    ///
    /// - Parameter vaultKey: The vault key from an unlock.
    /// - Returns: The updated keyring and the new recovery key to show once.
    /// - Throws: `MedVaultError.Code.wrongKey` when `vaultKey` is not this vault's.
    public func regeneratingRecoveryKey(vaultKey: SecureBytes) throws -> (keyring: Keyring, recoveryKey: RecoveryKey) {
        try databaseKey(vaultKey: vaultKey).wipe()
        let recoveryKey = RecoveryKey.generate()
        let made = try Self.makeRecoverySlot(recoveryKey, vaultID: vaultID, vaultKey: vaultKey)
        let updated = slots.filter { $0.kind != .recovery } + [made.slot]
        let keyring = try with(slots: updated, pending: .none, vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey, newSlot: SlotProof(id: made.slot.id, kek: made.kek))
        return (keyring, recoveryKey)
    }

    /// Adds a platform slot: stores a new random key-encryption key in `store` and seals the
    /// vault key under it. The new slot is the last of ``slots``.
    ///
    /// The secret is stored before the keyring is returned: if writing the keyring then
    /// fails, the orphaned secret opens nothing and may be deleted.
    ///
    /// - Parameters:
    ///   - store: Where to keep the slot's secret (Keychain, file, memory).
    ///   - account: The account name in `store`; `"medvault.<vault id>.<slot id>"` by default.
    ///   - vaultKey: The vault key from an unlock.
    /// - Returns: The updated keyring.
    /// - Throws: `MedVaultError.Code.wrongKey` for a wrong vault key; `MedVaultError.Code.invalidArgument`
    ///   for an empty or over-long account or a full keyring; the store's errors.
    public func addingPlatformSlot(
        store: any SecretStore, account: String? = nil, vaultKey: SecureBytes
    ) async throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        try checkRoomForSlot()
        let id = UUID()
        let name = account ?? "medvault.\(vaultID.uuidString.lowercased()).\(id.uuidString.lowercased())"
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw MedVaultError(.invalidArgument, field: "account", reason: "account name must be 1 to 255 bytes")
        }
        let secret = SecureBytes.random(count: 32)
        defer { secret.wipe() }
        let kek = try KeyWrap.key(secret)
        let slot = try Self.makeSlot(
            kind: .platform, derivation: .storedSecret(account: name), kek: kek,
            vaultID: vaultID, vaultKey: vaultKey, id: id
        )
        // Proven before the secret is stored: a keyring that fails its proof leaves no orphan.
        let updated = try with(slots: slots + [slot], pending: .none, vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey, newSlot: SlotProof(id: id, kek: kek))
        try await store.store(secret, account: name)
        return updated
    }

    /// Removes a slot.
    ///
    /// The last password slot cannot be removed: a person must always be able to open the
    /// vault with something they know (a platform store can vanish with the device). So a
    /// keyring never ends up with zero slots. Removing the recovery slot is allowed, but then
    /// a forgotten password loses the data. After removing a platform slot, write the keyring
    /// and then delete the secret from its store (``KeySlot/account``).
    ///
    /// - Parameters:
    ///   - id: The slot to remove.
    ///   - vaultKey: The vault key from an unlock.
    /// - Returns: The updated keyring.
    /// - Throws: `MedVaultError.Code.notFound` (field `"slot"`) for an unknown id;
    ///   `MedVaultError.Code.invalidArgument` (field `"slot"`) for the last password slot;
    ///   `MedVaultError.Code.wrongKey` for a wrong vault key.
    public func removingSlot(id: UUID, vaultKey: SecureBytes) throws -> Keyring {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard let slot = slots.first(where: { $0.id == id }) else {
            throw MedVaultError(.notFound, field: "slot", reason: "no slot has this id")
        }
        if slot.kind == .password, slots(ofKind: .password).count == 1 {
            throw MedVaultError(.invalidArgument, field: "slot", reason: "the last password slot cannot be removed")
        }
        return try with(slots: slots.filter { $0.id != id }, pending: .none, vaultKey: vaultKey)
            .proveSound(vaultKey: vaultKey)
    }

    private func checkRoomForSlot() throws {
        guard slots.count < KeyringCodec.maximumSlots else {
            throw MedVaultError(.invalidArgument, field: "slot", reason: "a keyring holds at most 32 slots")
        }
    }
}
