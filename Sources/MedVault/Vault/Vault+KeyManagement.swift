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
    /// - Throws: `validation` (field `password`) when `new` fails the vault's
    ///   ``Options/passwordPolicy`` (checked first: nothing is derived or changed);
    ///   `wrongPassword` when `current` is wrong (nothing changes); `locked`.
    public func changePassword(from current: Password, to new: Password) async throws {
        try options.passwordPolicy.check(new)
        let kdf = options.kdf
        try await keys.perform { operation in
            let keyring = await operation.keyring()
            let checked = try await BlockingWork.run { try keyring.unlock(password: current) }
            defer { checked.wipe() }
            guard checked == operation.vaultKey else {
                throw MedVaultError(.wrongPassword, reason: "the current password is not this vault's")
            }
            let vaultKey = operation.vaultKey
            let updated = try await BlockingWork.run { try keyring.replacingPassword(new, vaultKey: vaultKey, kdf: kdf) }
            try await operation.commit(updated)
        }
        await recordKeyOperation(.passwordChange)
    }

    /// Sets a new password with the recovery key, for an owner who forgot theirs, and
    /// opens the vault. The old password stops working; the recovery key keeps working.
    ///
    /// - Throws: `validation` (field `password`) when `newPassword` fails
    ///   `options.passwordPolicy` (checked before the vault opens); `wrongRecoveryKey`, and
    ///   the errors of ``open(at:password:options:)``.
    public static func resetPassword(
        at folder: URL, recoveryKey: RecoveryKey, newPassword: Password, options: Options = Options()
    ) async throws -> Vault {
        try options.passwordPolicy.check(newPassword)
        let vault = try await open(at: folder, recoveryKey: recoveryKey, options: options)
        let kdf = options.kdf
        do {
            try await vault.keys.perform { operation in
                let keyring = await operation.keyring()
                let vaultKey = operation.vaultKey
                let updated = try await BlockingWork.run {
                    try keyring.replacingPassword(newPassword, vaultKey: vaultKey, kdf: kdf)
                }
                try await operation.commit(updated)
            }
        } catch {
            await vault.lock()
            throw error
        }
        await vault.recordKeyOperation(.passwordChange)
        return vault
    }

    /// Replaces the recovery key with a new one; the old one stops working.
    ///
    /// - Returns: The new recovery key, to show the owner once.
    /// - Throws: `locked`; `vaultInUse` when another process's key operation did not
    ///   finish within ``Options/lockTimeout``.
    public func regenerateRecoveryKey() async throws -> RecoveryKey {
        try await regenerateRecoveryKey(showingFirst: { _ in })
    }

    /// Replaces the recovery key, handing the new key to `show` **before** the keyring
    /// that makes it the only recovery key is written.
    ///
    /// A process killed at any point then leaves either the old key working, or the new
    /// one shown (or both, when the kill lands between `show` and the keyring write);
    /// never a vault whose only recovery key was never seen. `show` must make the key
    /// durable for its owner (print it and flush, write it where the owner keeps it)
    /// before it returns; if it throws, nothing changes. It runs while this vault's key
    /// operation holds the keyring's lock: other processes' key operations wait (and
    /// may give up with `vaultInUse`) meanwhile, and `show` must not call `lock()` or
    /// another key operation of this vault.
    ///
    /// For example, a command-line tool:
    ///
    /// ```swift
    /// let key = try await vault.regenerateRecoveryKey(showingFirst: { key in
    ///     printNowUnbuffered("New recovery key (installed once confirmed below):\n\(key)")
    /// })
    /// print("The recovery key was replaced.")
    /// ```
    ///
    /// - Parameter show: Receives the new key before it replaces the old one.
    /// - Returns: The new recovery key.
    /// - Throws: What `show` threw (nothing changed), `locked`, `vaultInUse`, or a
    ///   keyring write error: then the key `show` received was not installed and the old
    ///   one still opens the vault.
    public func regenerateRecoveryKey(
        showingFirst show: @Sendable (RecoveryKey) async throws -> Void
    ) async throws -> RecoveryKey {
        let recoveryKey = try await keys.perform { operation in
            let (updated, recoveryKey) = try await operation.keyring().regeneratingRecoveryKey(vaultKey: operation.vaultKey)
            try await show(recoveryKey)
            try await operation.commit(updated)
            return recoveryKey
        }
        await recordKeyOperation(.recoveryKeyRegeneration)
        return recoveryKey
    }

    // MARK: - Platform slots

    /// Adds a slot whose key-encryption key lives in `store` (the Apple Keychain, or a
    /// file or memory store on Linux), so the vault opens with
    /// ``open(at:secretStore:options:)`` without a password.
    ///
    /// - Returns: The new slot's identifier, for ``removeSlot(id:)``.
    public func addPlatformSlot(store: any SecretStore) async throws -> UUID {
        let id = try await keys.perform { operation in
            let updated = try await operation.keyring().addingPlatformSlot(store: store, vaultKey: operation.vaultKey)
            guard let slot = updated.slots.last else {
                throw MedVaultError(.corrupted, reason: "the keyring lost its new slot")
            }
            try await operation.commit(updated)
            return slot.id
        }
        await recordKeyOperation(.slotChange)
        return id
    }

    /// Removes a slot. The last password slot cannot be removed.
    ///
    /// - Throws: `notFound` for an unknown slot; `invalidArgument` for the last password slot.
    public func removeSlot(id: UUID) async throws {
        try await keys.perform { operation in
            try await operation.commit(try await operation.keyring().removingSlot(id: id, vaultKey: operation.vaultKey))
        }
        await recordKeyOperation(.slotChange)
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
    /// Needs the vault alone: while another process (or another `Vault` value) has it
    /// open, the rotation is refused with `vaultInUse` before anything changes. Checks
    /// first that the disk has room for the re-encrypted copy. ``lock()`` during the
    /// copy stops it (the old key stays in force).
    ///
    /// - Parameter progress: Called at each ``RotationProgress/Phase`` and while copying.
    /// - Throws: `locked`; `vaultInUse`; `diskFull` (nothing changed); `conflict` if a
    ///   rotation is already pending; storage errors — before the swap the old key stays
    ///   in force; after it (the folder could not be synced) both keys stay in the
    ///   keyring and the next open finishes the rotation.
    public func rotateDatabaseKey(
        progress: @escaping @Sendable (RotationProgress) -> Void = { _ in }
    ) async throws {
        let database = self.database
        let layout = self.layout
        try await keys.perform(soleAccess: true) { operation in
            try DiskSpace.requireRoomForCopy(of: layout.database)
            let (begun, newKey) = try await operation.keyring().beginningRotation(vaultKey: operation.vaultKey)
            defer { newKey.wipe() }
            try await operation.commit(begun)
            progress(RotationProgress(phase: .pendingKeyRecorded, fractionCopied: 0))
            let lockRequest = operation.session.lockRequest
            do {
                try await database.changeKey(to: newKey, progress: { fraction in
                    progress(RotationProgress(phase: .copying, fractionCopied: fraction))
                    return !lockRequest.isSet
                }, verifying: {
                    progress(RotationProgress(phase: .verifying, fractionCopied: 1))
                })
            } catch is KeyChangeNotDurable {
                // The file is under the new key but its swap may not be durable: keep
                // both keys in the keyring (the next open finds the one that opens it).
                throw MedVaultError(.storage, reason: """
                    the database was re-encrypted but its folder could not be synced; \
                    the rotation is finished when the vault is opened again
                    """)
            } catch {
                // Every other failure comes before the swap: the file still has the old
                // key, so the pending one is dropped.
                if let abandoned = try? await operation.keyring().abandoningRotation(vaultKey: operation.vaultKey) {
                    try? await operation.commit(abandoned, evenWhileLocking: true)
                }
                if lockRequest.isSet { throw Vault.lockedError }
                throw error
            }
            progress(RotationProgress(phase: .databaseReplaced, fractionCopied: 1))
            // The file is under the new key now: the keyring must say so, lock or not.
            let completed = try await operation.keyring().completingRotation(vaultKey: operation.vaultKey)
            try await operation.commit(completed, evenWhileLocking: true)
            progress(RotationProgress(phase: .finished, fractionCopied: 1))
        }
        await recordKeyOperation(.databaseKeyRotation)
    }

    // MARK: - Destroying

    /// Crypto-shreds the vault: the keyring is overwritten with random bytes, synced and
    /// removed, so the database key is gone and the records cannot be recovered by
    /// anyone, with any password or recovery key. Then the database files are removed.
    ///
    /// Needs the vault alone, like a key rotation; temporary keyrings that interrupted writes left
    /// behind are shredded too.
    ///
    /// - Throws: `locked` when the vault was locked (open it to prove you may destroy it);
    ///   `vaultInUse` while another process or `Vault` has it open (nothing is removed).
    public func destroy() async throws {
        let layout = self.layout
        let database = self.database
        let changeFeed = self.changeFeed
        do {
            try await keys.perform(soleAccess: true) { _ in
                // Under both locks, alone: close the database, then shred the keyring.
                await changeFeed.close()
                await database.close()
                do {
                    try KeyringFile.destroy(at: layout.keyring)
                    for name in KeyringFile.temporaryFiles(besides: layout.keyring) {
                        try KeyringFile.destroy(at: layout.folder.appendingPathComponent(name))
                    }
                } catch {
                    throw DestroyFailedAfterClosing(underlying: error)
                }
                for file in layout.allFiles {
                    try? FileManager.default.removeItem(at: file)
                }
            }
        } catch let failure as DestroyFailedAfterClosing {
            // The database is closed already: lock, so no key stays in memory and later
            // calls say `locked` rather than "the database is closed".
            await lock()
            throw failure.underlying
        }
        await lock()
        // Safe although another process may be waiting on them: a lock taken on an
        // unlinked file is noticed and taken again on the new one (VaultFileLock).
        unlink(layout.presenceLock.path)
        unlink(layout.keyringLock.path)
        rmdir(layout.folder.path) // removes the folder only when nothing else is in it
    }
}

/// A `destroy()` failure after the database was closed.
private struct DestroyFailedAfterClosing: Error {
    let underlying: any Error
}
