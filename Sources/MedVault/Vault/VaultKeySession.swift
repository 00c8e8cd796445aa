import Foundation
import MedVaultCore
import MedVaultKeys

/// The key state of an unlocked vault: the keyring as last read or written, the vault
/// key, and the vault's presence lock.
///
/// Key operations (password and slot changes, recovery-key regeneration, rotation) run
/// one at a time through ``perform(soleAccess:_:)``, which
/// - waits for the operation before it (the actor is re-entrant across `await`, so
///   an explicit line is kept);
/// - works on a private copy of the vault key, so ``lock()`` never wipes bytes an
///   operation is using;
/// - takes the keyring lock (other processes), re-reads the keyring under it and
///   adopts the file's version when another process changed it (compare-and-swap:
///   a change is always applied to the keyring on disk, never to a stale copy);
/// - refuses to write once ``lock()`` was asked for, and proves every keyring before it
///   replaces the file (the database key unwraps under the vault key, the MAC holds).
///
/// ``lock()`` marks the session locked at once (new operations fail with `locked`),
/// waits for the operation in flight to stop at its next check, then wipes the key.
actor VaultKeySession {
    private(set) var keyring: Keyring
    private var vaultKey: SecureBytes?
    /// The sync keys last derived (``syncKeyChain(vaultID:epochKeys:)``), also looked up
    /// from a database read without a hop to this actor.
    nonisolated let chainCache = SyncKeyChainCache()
    private var operationInFlight = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Set by ``lock()``; read from other threads by a rotation's progress callback.
    nonisolated let lockRequest = LockRequest()
    let layout: VaultLayout
    let presence: VaultFileLock
    let lockTimeout: Duration

    init(keyring: Keyring, vaultKey: SecureBytes, layout: VaultLayout, presence: VaultFileLock, lockTimeout: Duration) {
        self.keyring = keyring
        self.vaultKey = vaultKey
        self.layout = layout
        self.presence = presence
        self.lockTimeout = lockTimeout
    }

    var isLocked: Bool { vaultKey == nil || lockRequest.isSet }

    /// Throws `locked` once ``lock()`` was asked for.
    func requireVaultKey() throws { try requireUnlocked() }

    /// Throws `locked` once ``lock()`` was asked for.
    func requireUnlocked() throws {
        guard vaultKey != nil, !lockRequest.isSet else { throw Vault.lockedError }
    }

    /// Derives this vault's sync keys from the vault key (see `SyncKeys`); the caller
    /// wipes them.
    ///
    /// - Throws: `locked` once ``lock()`` was asked for.
    func syncKeys(vaultID: UUID) throws -> SyncKeys {
        try requireUnlocked()
        guard let vaultKey else { throw Vault.lockedError }
        return try SyncKeys(vaultKey: vaultKey, vaultID: vaultID)
    }

    /// The sync keys of epoch 0 and of each epoch in `epochKeys`, derived once and kept
    /// while the epoch keys stay the same (see ``SyncKeyChainCache``). The caller does
    /// not wipe them: ``lock()`` does.
    ///
    /// - Throws: `locked` once ``lock()`` was asked for.
    func syncKeyChain(vaultID: UUID, epochKeys: [UInt32: SecureBytes]) throws -> SyncKeyChain {
        try requireUnlocked()
        guard let vaultKey else { throw Vault.lockedError }
        if let chain = chainCache.chain(for: epochKeys, vaultID: vaultID) { return chain }
        let chain = try SyncKeyChain(vaultKey: vaultKey, vaultID: vaultID, epochKeys: epochKeys)
        try chainCache.keep(chain, for: epochKeys, vaultID: vaultID)
        return chain
    }

    /// Seals epoch keys for the recovery kit (`SealedEpochKeys`).
    ///
    /// - Throws: `locked` once ``lock()`` was asked for.
    func sealEpochKeys(_ keys: [UInt32: SecureBytes], firstEpoch: UInt32, vaultID: UUID, secret: SyncSecret) throws -> Data {
        try requireUnlocked()
        guard let vaultKey else { throw Vault.lockedError }
        return try SealedEpochKeys.seal(keys, firstEpoch: firstEpoch, vaultID: vaultID, vaultKey: vaultKey, secret: secret)
    }

    /// Opens epoch keys sealed for the recovery kit (`SealedEpochKeys`).
    ///
    /// - Throws: `corrupted` when they do not open; `locked` once ``lock()`` was asked for.
    func openEpochKeys(_ bytes: Data, vaultID: UUID, secret: SyncSecret) throws -> SealedEpochKeys.Opened {
        try requireUnlocked()
        guard let vaultKey else { throw Vault.lockedError }
        return try SealedEpochKeys.open(bytes, vaultID: vaultID, vaultKey: vaultKey, secret: secret)
    }

    /// `keyring` without this device's audit record (format version 1), re-tagged under
    /// the vault key: what sync publishes.
    ///
    /// - Throws: `locked` once ``lock()`` was asked for; `corrupted` for a keyring this
    ///   vault key does not authenticate.
    func withoutAuditRecord(_ keyring: Keyring) throws -> Keyring {
        try requireUnlocked()
        guard let vaultKey else { throw Vault.lockedError }
        return try keyring.withoutAuditRecord(vaultKey: vaultKey)
    }

    // MARK: - Key operations

    /// Runs one key operation; see the type's documentation.
    ///
    /// - Parameters:
    ///   - soleAccess: Whether the operation needs the vault alone (rotation, destroy):
    ///     it then fails with `vaultInUse` while another process or `Vault` has it open.
    ///   - body: The operation. Read the keyring with ``KeyOperation/keyring()`` and
    ///     write with ``KeyOperation/commit(_:evenWhileLocking:)``.
    func perform<Result: Sendable>(
        soleAccess: Bool = false, _ body: (KeyOperation) async throws -> Result
    ) async throws -> Result {
        try await beginOperation()
        defer { endOperation() }
        guard let vaultKey else { throw Vault.lockedError }
        let privateKey = try vaultKey.copy()
        defer { privateKey.wipe() }
        let keyringLock = try VaultFileLock(layout.keyringLock)
        defer { keyringLock.release() }
        let lockRequest = self.lockRequest
        try await keyringLock.lock(.exclusive, timeout: lockTimeout,
                                   waitingFor: "another process is changing this vault's keys",
                                   giveUpIf: { lockRequest.isSet })
        try requireUnlocked()
        if soleAccess {
            guard try presence.upgradeIfAlone() else {
                throw MedVaultError(.vaultInUse,
                                    reason: "another process (or another open Vault) has this vault open; close it there and try again")
            }
        }
        defer { if soleAccess { presence.downgrade() } }
        keyring = try Self.reread(layout, cached: keyring, vaultKey: privateKey)
        return try await body(KeyOperation(session: self, vaultKey: privateKey))
    }

    /// Proves `updated` and writes it over the keyring file; keeps it as the current one.
    ///
    /// - Parameter evenWhileLocking: Write even when ``lock()`` was asked for (a step that
    ///   must finish what an earlier write began, such as completing a rotation).
    fileprivate func commit(_ updated: Keyring, vaultKey: SecureBytes, evenWhileLocking: Bool) throws {
        if !evenWhileLocking { try requireUnlocked() }
        try Self.prove(updated, vaultKey: vaultKey)
        try KeyringFile.write(updated, to: layout.keyring)
        keyring = updated
        // A leftover of an earlier, interrupted write could still open the vault with
        // an old password: none may outlive a write that succeeded. Best effort here (the
        // write itself stands); the next open sweeps again, and verify() reports any.
        _ = try? KeyringFile.removeTemporaryFiles(besides: layout.keyring)
    }

    /// The keyring file as it is now (under the keyring lock): the cached copy when
    /// unchanged, else the file's, once proven to belong to this vault key.
    static func reread(_ layout: VaultLayout, cached: Keyring, vaultKey: SecureBytes) throws -> Keyring {
        let onDisk = try Vault.readKeyring(layout)
        if onDisk == cached { return onDisk }
        do {
            try prove(onDisk, vaultKey: vaultKey)
        } catch {
            throw MedVaultError(.conflict,
                                reason: "the keyring was replaced by one this vault key does not open; open the vault again")
        }
        return onDisk
    }

    /// A keyring is written only when its database key unwraps under the vault key and its
    /// authentication tag verifies: a keyring sealed under wiped (zero) bytes never is.
    static func prove(_ keyring: Keyring, vaultKey: SecureBytes) throws {
        let databaseKey = try keyring.databaseKey(vaultKey: vaultKey)
        databaseKey.wipe()
        if let pending = try keyring.pendingDatabaseKey(vaultKey: vaultKey) { pending.wipe() }
    }

    private func beginOperation() async throws {
        while operationInFlight {
            await withCheckedContinuation { waiters.append($0) }
        }
        try requireUnlocked()
        operationInFlight = true
    }

    private func endOperation() {
        operationInFlight = false
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    // MARK: - Locking

    /// Marks the session locked, waits for the key operation in flight (which stops at
    /// its next check), then wipes the vault key.
    func lock() async {
        lockRequest.set()
        while operationInFlight {
            await withCheckedContinuation { waiters.append($0) }
        }
        vaultKey?.wipe()
        vaultKey = nil
        chainCache.wipe()
    }
}

/// What a key operation sees: the vault key (a private copy, wiped when the operation
/// ends) and the keyring, and how it writes a new keyring.
struct KeyOperation: Sendable {
    let session: VaultKeySession
    /// The operation's private copy of the vault key.
    let vaultKey: SecureBytes

    /// The keyring as re-read under the keyring lock, or as last committed.
    func keyring() async -> Keyring { await session.keyring }

    /// Proves and writes `keyring`. Fails with `locked` once ``Vault/lock()`` was asked
    /// for, unless `evenWhileLocking`.
    func commit(_ keyring: Keyring, evenWhileLocking: Bool = false) async throws {
        try await session.commit(keyring, vaultKey: vaultKey, evenWhileLocking: evenWhileLocking)
    }

    /// Throws `locked` once ``Vault/lock()`` was asked for.
    func checkNotLocking() throws {
        if session.lockRequest.isSet { throw Vault.lockedError }
    }
}

/// A flag set once by ``VaultKeySession/lock()`` and read from any thread.
final class LockRequest: @unchecked Sendable {
    // Safety of @unchecked Sendable: `value` is read and written only under `lock`.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
