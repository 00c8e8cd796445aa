import Foundation
import MedVaultCore
import MedVaultKeys

extension Vault {
    // MARK: - Passwords and recovery

    /// Changes the password. Only the keyring changes: the vault key is re-wrapped under
    /// the new password, so this takes the same time on a 1 MB and a 1 GB vault and the
    /// database file is not touched. The recovery key keeps working.
    ///
    /// - Parameters:
    ///   - current: The current password, checked first (two Argon2id runs in all).
    ///   - new: The new password.
    /// - Throws: `wrongPassword` when `current` is wrong (nothing changes); `locked`;
    ///   `validation` for an empty new password.
    public func changePassword(from current: Password, to new: Password) async throws {
        let kdf = options.kdf
        try await keys.update { keyring, vaultKey in
            let checked = try await BlockingWork.run { try keyring.unlock(password: current) }
            guard checked == vaultKey else {
                throw MedVaultError(.wrongPassword, reason: "the current password is not this vault's")
            }
            let updated = try await BlockingWork.run { try keyring.replacingPassword(new, vaultKey: vaultKey, kdf: kdf) }
            return (updated, ())
        }
    }

    /// Sets a new password with the recovery key, for an owner who forgot theirs, and
    /// opens the vault. The old password stops working; the recovery key keeps working.
    ///
    /// - Throws: `wrongRecoveryKey`, and the errors of ``open(at:password:options:)``.
    public static func resetPassword(
        at folder: URL, recoveryKey: RecoveryKey, newPassword: Password, options: Options = Options()
    ) async throws -> Vault {
        let vault = try await open(at: folder, recoveryKey: recoveryKey, options: options)
        let kdf = options.kdf
        do {
            try await vault.keys.update { keyring, vaultKey in
                let updated = try await BlockingWork.run {
                    try keyring.replacingPassword(newPassword, vaultKey: vaultKey, kdf: kdf)
                }
                return (updated, ())
            }
        } catch {
            await vault.lock()
            throw error
        }
        return vault
    }

    /// Replaces the recovery key with a new one; the old one stops working.
    ///
    /// - Returns: The new recovery key, to show the owner once.
    /// - Throws: `locked`.
    public func regenerateRecoveryKey() async throws -> RecoveryKey {
        try await keys.update { keyring, vaultKey in
            try keyring.regeneratingRecoveryKey(vaultKey: vaultKey)
        }
    }

    // MARK: - Platform slots

    /// Adds a slot whose key-encryption key lives in `store` (the Apple Keychain, or a
    /// file or memory store on Linux), so the vault opens with
    /// ``open(at:secretStore:options:)`` without a password.
    ///
    /// - Returns: The new slot's identifier, for ``removeSlot(id:)``.
    public func addPlatformSlot(store: any SecretStore) async throws -> UUID {
        try await keys.update { keyring, vaultKey in
            let updated = try await keyring.addingPlatformSlot(store: store, vaultKey: vaultKey)
            guard let slot = updated.slots.last else {
                throw MedVaultError(.corrupted, reason: "the keyring lost its new slot")
            }
            return (updated, slot.id)
        }
    }

    /// Removes a slot. The last password slot cannot be removed.
    ///
    /// - Throws: `notFound` for an unknown slot; `invalidArgument` for the last password slot.
    public func removeSlot(id: UUID) async throws {
        try await keys.update { keyring, vaultKey in
            (try keyring.removingSlot(id: id, vaultKey: vaultKey), ())
        }
    }

    /// The keyring's slots: their identifiers, kinds and KDF parameters (no secrets).
    public var slots: [KeySlot] {
        get async { await keys.keyring.slots }
    }

    // MARK: - Rotation

    /// Replaces the database key with a new random one and re-encrypts the database.
    ///
    /// Crash-safe: the new key is recorded (wrapped) in the keyring before the copy
    /// starts; the database file is replaced in one atomic rename after the copy is
    /// verified; the keyring drops the old key only after that. Opening the vault after
    /// a crash at any step finds the key that opens the file and finishes the keyring.
    /// The vault stays usable: calls made during the rotation wait for it.
    ///
    /// - Parameter progress: Called at each ``RotationProgress/Phase`` and while copying.
    /// - Throws: `locked`; `conflict` if a rotation is already pending; storage errors
    ///   (the old key then stays in force).
    public func rotateDatabaseKey(
        progress: @escaping @Sendable (RotationProgress) -> Void = { _ in }
    ) async throws {
        let newKey: SecureBytes = try await keys.update { keyring, vaultKey in
            try keyring.beginningRotation(vaultKey: vaultKey)
        }
        defer { newKey.wipe() }
        progress(RotationProgress(phase: .pendingKeyRecorded, fractionCopied: 0))
        do {
            try await database.changeKey(to: newKey) { fraction in
                progress(RotationProgress(phase: .copying, fractionCopied: fraction))
                return true
            }
        } catch {
            // The file still has the old key: drop the pending one.
            _ = try? await keys.update { keyring, vaultKey in
                (try keyring.abandoningRotation(vaultKey: vaultKey), ())
            }
            throw error
        }
        progress(RotationProgress(phase: .databaseReplaced, fractionCopied: 1))
        try await keys.update { keyring, vaultKey in
            (try keyring.completingRotation(vaultKey: vaultKey), ())
        }
        progress(RotationProgress(phase: .finished, fractionCopied: 1))
    }

    // MARK: - Destroying

    /// Crypto-shreds the vault: the keyring is overwritten with random bytes, synced and
    /// removed, so the database key is gone and the records cannot be recovered by
    /// anyone, with any password or recovery key. Then the database files are removed.
    ///
    /// - Throws: `locked` when the vault was locked (open it to prove you may destroy it).
    public func destroy() async throws {
        _ = try await keys.requireVaultKey()
        await lock()
        try KeyringFile.destroy(at: layout.keyring)
        for file in layout.allFiles {
            try? FileManager.default.removeItem(at: file)
        }
        rmdir(layout.folder.path) // removes the folder only when nothing else is in it
    }
}
