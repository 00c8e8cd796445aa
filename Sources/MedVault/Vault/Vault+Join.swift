import Foundation
import MedVaultCore
import MedVaultKeys

extension Vault {
    /// Creates this device's copy of a vault that another device created: the keyring
    /// the sync server holds (another device published it, sealed under the vault's sync
    /// secret) is opened with the sync secret and unlocked with the owner's password, and
    /// `folder` gets this device's own keyring — the same vault key in the same password
    /// and recovery slots, a new database key of its own, none of the other device's
    /// platform slots — and an empty database under that key, holding the sync secret.
    /// The sync engine (module MedVaultSync) then joins the server and pulls every record.
    ///
    /// For example:
    ///
    /// ```swift
    /// let blob = try await transport.keyring(as: credentials)
    /// let secret = try SyncSecret(parsing: typedFromTheRecoveryKit)
    /// let vault = try await Vault.join(at: folder, keyring: blob.keyring, syncSecret: secret, password: password)
    /// ```
    ///
    /// The vault gets its own device id, so its changes are told apart from the other
    /// devices'. It shares the vault key (and so the sync keys) with them, not the
    /// database key: one device's database key opens no other device's database.
    ///
    /// - Parameters:
    ///   - folder: An empty or new folder (as for ``create(at:password:options:)``).
    ///   - keyring: The sealed keyring's bytes, as the server serves them.
    ///   - syncSecret: The vault's sync secret (an enrolled device shows it; the recovery
    ///     kit holds it).
    ///   - password: The owner's password.
    ///   - options: Key-derivation and database options (the cipher settings are the
    ///     keyring's).
    /// - Returns: The open vault, with no records until the sync engine pulls them.
    /// - Throws: `wrongSyncSecret` when the secret does not open the keyring;
    ///   `invalidArgument` for a keyring published in the clear by an earlier build (sync
    ///   an enrolled device of this version first: it seals it), or one whose Argon2
    ///   costs exceed `options.maximumSyncedArgon2MemoryKiB` (refused before any
    ///   derivation); `corrupted` for bytes that are not a keyring; `wrongPassword`;
    ///   `duplicate` when the folder already holds a vault. Nothing is left in the folder
    ///   on error.
    public static func join(at folder: URL, keyring: Data, syncSecret: SyncSecret, password: Password,
                            options: Options = Options()) async throws -> Vault {
        let sealed = try openSealed(keyring, syncSecret)
        try options.checkSyncedKeyringCost(sealed.keyring)
        let vaultKey = try await BlockingWork.run { try sealed.keyring.unlock(password: password) }
        return try await joined(at: folder, sealed: sealed, syncSecret: syncSecret, vaultKey: vaultKey, options: options)
    }

    /// Creates this device's copy of a vault from its sealed keyring, unlocked with the
    /// recovery key (see ``join(at:keyring:syncSecret:password:options:)``).
    ///
    /// - Parameters:
    ///   - folder: An empty or new folder.
    ///   - keyring: The sealed keyring's bytes, as the server serves them.
    ///   - syncSecret: The vault's sync secret.
    ///   - recoveryKey: The vault's recovery key.
    ///   - options: Key-derivation and database options.
    /// - Returns: The open vault.
    /// - Throws: `wrongRecoveryKey`, and the errors of
    ///   ``join(at:keyring:syncSecret:password:options:)``.
    public static func join(at folder: URL, keyring: Data, syncSecret: SyncSecret, recoveryKey: RecoveryKey,
                            options: Options = Options()) async throws -> Vault {
        let sealed = try openSealed(keyring, syncSecret)
        try options.checkSyncedKeyringCost(sealed.keyring)
        let vaultKey = try sealed.keyring.unlock(recoveryKey: recoveryKey)
        return try await joined(at: folder, sealed: sealed, syncSecret: syncSecret, vaultKey: vaultKey, options: options)
    }

    private static func openSealed(_ bytes: Data, _ secret: SyncSecret) throws -> SealedKeyring {
        guard SealedKeyring.isSealed(bytes) || (try? Keyring(serialized: Array(bytes))) == nil else {
            throw MedVaultError(.invalidArgument, field: "keyring", reason:
                "the server's keyring was published in the clear by an earlier build; sync an enrolled device of this version first, which seals it")
        }
        return try SealedKeyring(opening: bytes, secret: secret)
    }

    private static func joined(at folder: URL, sealed: SealedKeyring, syncSecret: SyncSecret, vaultKey: SecureBytes,
                               options: Options) async throws -> Vault {
        let keyring = sealed.keyring
        let layout = VaultLayout(folder: folder)
        var handedOver = false
        defer { if !handedOver { vaultKey.wipe() } }
        if holdsVault(layout) { throw alreadyAVault }
        guard !keyring.hasPendingRotation else {
            throw MedVaultError(.invalidArgument, field: "keyring",
                                reason: "the keyring is in the middle of a key rotation; sync again once it finished")
        }
        try VaultFolder.prepare(layout.folder)
        // This device's own keyring: the same vault key and slots, a database key of its own.
        let (local, databaseKey) = try keyring.forNewDevice(vaultKey: vaultKey)
        defer { databaseKey.wipe() }
        let auditKey = try AuditKey(vaultKey: vaultKey, vaultID: local.vaultID)
        let signingRoot = try ProfessionalSigningRoot(vaultKey: vaultKey, vaultID: local.vaultID)
        var options = options
        options.database.cipherSettings = local.cipherSettings
        let counter = sealed.counter
        let files = try await createFiles(in: layout, keyring: local, databaseKey: databaseKey, options: options) { db in
            // It opened the server's keyring: the vault's.
            try SyncSecretRecord.setSecret(syncSecret, confirmed: true, db)
            try SyncSecretRecord.raiseKeyringCounter(to: counter, db)
            try SyncSecretRecord.setSealedKeyringSeen(db)
        }
        handedOver = true
        return try await auditingUnlock(Vault(layout: layout, keyring: local, vaultKey: vaultKey, auditKey: auditKey,
                                              signingRoot: signingRoot, pool: files.pool, presence: files.presence,
                                              options: options))
    }
}

extension Vault {
    /// Takes the password and recovery slots of a keyring another device of the vault
    /// published (after a password change or a new recovery key there), so the new
    /// password opens this device too. Package API for the sync engine.
    ///
    /// Only the shared slots are taken: this device keeps its own database key (and any
    /// rotation of it under way) and its own platform slots
    /// (`Keyring.mergingSharedSlots(of:vaultKey:)`). Written under the keyring lock like
    /// any key operation (proved, atomically).
    ///
    /// - Parameter expected: When given, the digest of the shared slots the caller decided
    ///   from (`Keyring.sharedSlotsDigest`): the adoption is refused if a password change
    ///   or a new recovery key on this device replaced them meanwhile, instead of undoing it.
    /// - Returns: The digest of the shared slots the keyring file holds once adopted
    ///   (`Keyring.sharedSlotsDigest`), read under the keyring lock: what the caller marks
    ///   as adopted, not a change made after it.
    /// - Throws: `corrupted` for a keyring that is not an authentic keyring of this vault;
    ///   `invalidArgument` when its Argon2 costs exceed
    ///   ``Options/maximumSyncedArgon2MemoryKiB`` (it would run at the next unlock);
    ///   `conflict` when it has other cipher settings, or the shared slots are no longer
    ///   `expected`; `locked`.
    @discardableResult
    package func adoptSyncedKeyring(_ incoming: Keyring, replacingSharedSlots expected: Data? = nil) async throws -> Data {
        guard incoming.vaultID == vaultID else {
            throw MedVaultError(.corrupted, reason: "the synced keyring belongs to another vault")
        }
        try options.checkSyncedKeyringCost(incoming)
        return try await keys.perform { operation in
            let current = await operation.keyring()
            if let expected, current.sharedSlotsDigest != expected {
                throw MedVaultError(.conflict, reason: "this device's password or recovery key changed meanwhile; not adopted")
            }
            guard current.cipherSettings == incoming.cipherSettings else {
                throw MedVaultError(.conflict, reason: "the synced keyring has other cipher settings; not adopted")
            }
            let merged = try current.mergingSharedSlots(of: incoming, vaultKey: operation.vaultKey)
            if merged != current { try await operation.commit(merged) }
            return merged.sharedSlotsDigest
        }
    }
}
