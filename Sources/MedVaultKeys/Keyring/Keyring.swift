import Foundation
import MedVaultCore

/// The vault's key hierarchy as stored in the keyring file beside the database.
///
/// Two random 256-bit keys:
/// - the **vault key**, stable for the life of the vault, sealed once per ``KeySlot``
///   (password, recovery key, platform secret store);
/// - the **database key**, SQLCipher's raw key, sealed under the vault key. During a
///   rotation the keyring also holds the next (*pending*) database key.
///
/// Changing the password re-seals only the vault key (O(1)); rotating the database key
/// re-seals only under the vault key, so it needs none of the slot secrets (the recovery
/// key can stay in its drawer).
///
/// `Keyring` is an immutable value: every change returns a new keyring that the caller
/// writes with ``KeyringFile/write(_:to:)``.
///
/// For example:
///
/// ```swift
/// let created = try Keyring.create(password: try Password("s3cret horse"))
/// try KeyringFile.write(created.keyring, to: keyringURL)
/// print(created.recoveryKey.formatted)                   // show once
///
/// let keyring = try KeyringFile.read(at: keyringURL)
/// let vaultKey = try keyring.unlock(password: try Password("s3cret horse"))
/// let databaseKey = try keyring.databaseKey(vaultKey: vaultKey)   // for sqlite3_key
/// ```
public struct Keyring: Sendable, Hashable {
    /// The newest format version this library reads and writes: 2. A keyring is written
    /// in version 1 until its vault's audit trail records itself in it (at the first
    /// unlock by this version), then in version 2 (docs/keyring-format.md).
    public static let currentFormatVersion: UInt16 = 2

    /// The format version of this keyring: 2 when it holds an audit record, 1 otherwise.
    public var formatVersion: UInt16 { auditRecord == nil ? 1 : 2 }
    /// The vault's identifier, bound into every seal.
    public let vaultID: UUID
    /// How SQLCipher encrypts the database.
    public let cipherSettings: CipherSettings
    /// The ways to open the vault.
    public let slots: [KeySlot]
    /// Increases by one with every completed database-key rotation; starts at 1.
    public let databaseKeyGeneration: UInt64
    /// The current database key, sealed under the vault key.
    public let wrappedCurrentKey: WrappedKey
    /// The next database key while a rotation is under way, sealed under the vault key.
    public let wrappedPendingKey: WrappedKey?
    /// HMAC-SHA256 of the whole keyring under a key derived from the vault key.
    public let authenticationTag: [UInt8]
    /// This device's audit-trail record (format version 2): what the trail must still
    /// hold, authenticated under the audit key (``AuditAnchor``). `nil` in version 1.
    package let auditRecord: [UInt8]?

    /// Whether a database-key rotation has begun and not yet completed or been abandoned.
    public var hasPendingRotation: Bool { wrappedPendingKey != nil }

    /// The slots of one kind.
    public func slots(ofKind kind: KeySlot.Kind) -> [KeySlot] { slots.filter { $0.kind == kind } }

    init(
        vaultID: UUID, cipherSettings: CipherSettings, slots: [KeySlot],
        databaseKeyGeneration: UInt64, wrappedCurrentKey: WrappedKey, wrappedPendingKey: WrappedKey?,
        authenticationTag: [UInt8], auditRecord: [UInt8]?
    ) {
        self.vaultID = vaultID
        self.cipherSettings = cipherSettings
        self.slots = slots
        self.databaseKeyGeneration = databaseKeyGeneration
        self.wrappedCurrentKey = wrappedCurrentKey
        self.wrappedPendingKey = wrappedPendingKey
        self.authenticationTag = authenticationTag
        self.auditRecord = auditRecord
    }

    // MARK: - Creation

    /// What ``create(password:kdf:cipher:vaultID:)`` returns: the keyring to write and the
    /// keys it protects.
    public struct Creation: Sendable {
        /// The new keyring; write it with ``KeyringFile/write(_:to:)``.
        public let keyring: Keyring
        /// The vault key (keep it only while the vault is unlocked).
        public let vaultKey: SecureBytes
        /// The database key to create the SQLCipher database with.
        public let databaseKey: SecureBytes
        /// The recovery key: show it to the user once, then drop it.
        public let recoveryKey: RecoveryKey
    }

    /// Creates the key hierarchy of a new vault: random vault and database keys, a password
    /// slot and a recovery slot.
    ///
    /// - Parameters:
    ///   - password: The owner's password.
    ///   - kdf: Argon2id parameters for the password slot; at least ``Argon2Parameters/productionFloor``
    ///     unless made by a preset for tests.
    ///   - cipher: The SQLCipher settings the database will use.
    ///   - vaultID: The vault's identifier; a new random one by default.
    /// - Returns: The keyring and its keys.
    /// - Throws: `MedVaultError.Code.invalidArgument` for weak or invalid parameters or settings.
    public static func create(
        password: Password,
        kdf: Argon2Parameters = .recommended,
        cipher: CipherSettings = .medVaultDefault,
        vaultID: UUID = UUID()
    ) throws -> Creation {
        try cipher.validate()
        try kdf.checkUsableForNewSlot()
        let vaultKey = SecureBytes.random(count: 32)
        let databaseKey = SecureBytes.random(count: 32)
        let recoveryKey = RecoveryKey.generate()
        let current = try KeyWrap.seal(
            databaseKey, under: KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .current, generation: 1
            )
        )
        let password = try makePasswordSlot(password, kdf: kdf, vaultID: vaultID, vaultKey: vaultKey)
        let recovery = try makeRecoverySlot(recoveryKey, vaultID: vaultID, vaultKey: vaultKey)
        let keyring = try assemble(
            vaultID: vaultID, cipherSettings: cipher, slots: [password.slot, recovery.slot], generation: 1,
            current: current, pending: nil, vaultKey: vaultKey
        )
        // Both slots, not only the last one made, must yield the vault key.
        _ = try keyring.proveSound(vaultKey: vaultKey, newSlot: SlotProof(id: password.slot.id, kek: password.kek),
                                   expectedCurrentKey: databaseKey)
        _ = try keyring.proveSound(vaultKey: vaultKey, newSlot: SlotProof(id: recovery.slot.id, kek: recovery.kek))
        return Creation(keyring: keyring, vaultKey: vaultKey, databaseKey: databaseKey, recoveryKey: recoveryKey)
    }

    // MARK: - Unlocking

    /// Opens the vault key with a password.
    ///
    /// Runs Argon2id once per password slot (normally one), then one AEAD open and one HMAC.
    ///
    /// - Parameter password: The password.
    /// - Returns: The vault key.
    /// - Throws: `MedVaultError.Code.wrongPassword` when no password slot opens (also when a
    ///   slot's header was tampered with); `MedVaultError.Code.corrupted` when a slot opens but
    ///   the keyring's authentication tag does not match.
    public func unlock(password: Password) throws -> SecureBytes {
        for slot in slots(ofKind: .password) {
            guard case .argon2id(let parameters, let salt) = slot.derivation else { continue }
            // Decoding refused costs above the limits already; checked again so that no
            // keyring, however it was made, runs an unbounded derivation.
            try parameters.checkWithinOpeningLimits()
            let derived = try Argon2id.deriveKey(password: password, salt: salt, parameters: parameters)
            defer { derived.wipe() }
            if let vaultKey = open(slot, kek: try KeyWrap.key(derived)) {
                try verifyAuthenticationTag(vaultKey: vaultKey)
                return vaultKey
            }
        }
        throw MedVaultError(.wrongPassword, reason: "the password does not open this vault")
    }

    /// Opens the vault key with the recovery key. No slow KDF runs.
    ///
    /// - Parameter recoveryKey: A parsed recovery key (see ``RecoveryKey/init(parsing:)-(String)``).
    /// - Returns: The vault key.
    /// - Throws: `MedVaultError.Code.wrongRecoveryKey` when no recovery slot opens;
    ///   `MedVaultError.Code.corrupted` when the keyring's authentication tag does not match.
    public func unlock(recoveryKey: RecoveryKey) throws -> SecureBytes {
        for slot in slots(ofKind: .recovery) {
            guard case .hkdfSHA256(let salt) = slot.derivation else { continue }
            if let vaultKey = open(slot, kek: try KeyWrap.recoveryKEK(recoveryKey, salt: salt)) {
                try verifyAuthenticationTag(vaultKey: vaultKey)
                return vaultKey
            }
        }
        throw MedVaultError(.wrongRecoveryKey, reason: "the recovery key does not open this vault")
    }

    /// Opens the vault key with one platform slot's secret from `store`.
    ///
    /// - Parameters:
    ///   - id: The platform slot's identifier.
    ///   - store: The store holding the slot's secret.
    /// - Returns: The vault key.
    /// - Throws: `MedVaultError.Code.notFound` (field `"slot"`) when there is no such platform
    ///   slot or the store holds no secret for it; `MedVaultError.Code.wrongKey` when the stored
    ///   secret does not open it; `MedVaultError.Code.corrupted` for a bad authentication tag.
    public func unlock(platformSlot id: UUID, store: any SecretStore) async throws -> SecureBytes {
        guard let slot = slots.first(where: { $0.id == id && $0.kind == .platform }), let account = slot.account else {
            throw MedVaultError(.notFound, field: "slot", reason: "no platform slot has this id")
        }
        guard let secret = try await store.load(account: account) else {
            throw MedVaultError(.notFound, field: "slot", reason: "the secret store holds no secret for this slot")
        }
        return try unlock(platformSlot: slot, secret: secret)
    }

    /// Opens the vault key with `slot` and its stored `secret`, which this wipes.
    private func unlock(platformSlot slot: KeySlot, secret: SecureBytes) throws -> SecureBytes {
        defer { secret.wipe() }
        guard let vaultKey = open(slot, kek: try KeyWrap.key(secret)) else {
            throw MedVaultError(.wrongKey, reason: "the stored secret does not open this slot")
        }
        try verifyAuthenticationTag(vaultKey: vaultKey)
        return vaultKey
    }

    /// Opens the vault key with the first platform slot whose secret `store` holds.
    ///
    /// - Parameter store: The secret store.
    /// - Returns: The vault key.
    /// - Throws: `MedVaultError.Code.notFound` when no platform slot has a secret in `store`;
    ///   otherwise as ``unlock(platformSlot:store:)``.
    public func unlock(using store: any SecretStore) async throws -> SecureBytes {
        for slot in slots(ofKind: .platform) {
            // Loaded once: each load is a trip to the store (a keychain query on a device).
            guard let account = slot.account, let secret = try await store.load(account: account) else { continue }
            return try unlock(platformSlot: slot, secret: secret)
        }
        throw MedVaultError(.notFound, field: "slot", reason: "the secret store holds no secret for any platform slot")
    }

    // MARK: - Database keys

    /// Opens the current database key (SQLCipher's raw key) with the vault key.
    ///
    /// - Parameter vaultKey: A vault key from one of the `unlock` methods.
    /// - Returns: 32 bytes for `sqlite3_key`.
    /// - Throws: `MedVaultError.Code.wrongKey` when `vaultKey` is not this vault's;
    ///   `MedVaultError.Code.corrupted` when the keyring's authentication tag does not match.
    public func databaseKey(vaultKey: SecureBytes) throws -> SecureBytes {
        guard let key = KeyWrap.open(
            wrappedCurrentKey, under: try KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .current, generation: databaseKeyGeneration
            )
        ) else {
            throw MedVaultError(.wrongKey, reason: "the vault key does not open this keyring")
        }
        do {
            try verifyAuthenticationTag(vaultKey: vaultKey)
        } catch {
            key.wipe()
            throw error
        }
        return key
    }

    /// Opens the pending database key of a rotation under way, or returns `nil` when none is.
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The next database key, or `nil`.
    /// - Throws: As ``databaseKey(vaultKey:)``.
    public func pendingDatabaseKey(vaultKey: SecureBytes) throws -> SecureBytes? {
        try databaseKey(vaultKey: vaultKey).wipe()
        guard let wrappedPendingKey else { return nil }
        return try openPending(wrappedPendingKey, vaultKey: vaultKey)
    }

    /// Opens the current database key and, while a rotation is under way, the pending
    /// one, checking the keyring's authentication tag once (what opening a vault needs).
    ///
    /// - Parameter vaultKey: The vault key.
    /// - Returns: The current key and the pending key (or `nil`); the caller wipes both.
    /// - Throws: As ``databaseKey(vaultKey:)``.
    public func databaseKeys(vaultKey: SecureBytes) throws -> (current: SecureBytes, pending: SecureBytes?) {
        let current = try databaseKey(vaultKey: vaultKey)
        guard let wrappedPendingKey else { return (current, nil) }
        do {
            return (current, try openPending(wrappedPendingKey, vaultKey: vaultKey))
        } catch {
            current.wipe()
            throw error
        }
    }

    // MARK: - Serialisation

    /// The keyring file's bytes (format in `docs/keyring-format.md`).
    public func serialized() -> [UInt8] { KeyringCodec.file(of: self) }

    /// Decodes keyring file bytes.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for anything but a valid keyring (empty,
    ///   truncated, altered, another format); `MedVaultError.Code.schemaTooNew` for a valid
    ///   keyring of a newer format.
    public init(serialized bytes: [UInt8]) throws {
        self = try KeyringCodec.decode(bytes)
    }
}
