import Foundation
import MedVaultKeys

extension Vault {
    /// Runs `body` with this vault's sync keys of its newest epoch (derived from the vault
    /// key and the epoch key, see `SyncKeys`; derived once and kept while the vault is
    /// unlocked and its epoch keys unchanged).
    ///
    /// Package API: the sync module seals and opens envelopes with it; an app never
    /// needs the keys. ``lock()`` wipes them: a `body` still running then fails with
    /// `locked`, like any operation racing a lock.
    ///
    /// - Throws: `MedVaultError.Code.locked` when the vault is locked; what `body` throws.
    package func withSyncKeys<Result>(_ body: (SyncKeys) throws -> Result) async throws -> Result {
        let chain = try await syncKeyChain()
        try await audit.record(.sync)
        return try body(chain.current)
    }

    /// Runs an asynchronous `body` with the sync keys of every epoch this vault holds
    /// (`SyncKeyChain`: the newest seals, each opens its own epoch's envelopes; kept as
    /// ``withSyncKeys(_:)`` says): for the sync engine, which seals inside a write transaction.
    ///
    /// - Throws: `MedVaultError.Code.locked` when the vault is locked; what `body` throws.
    /// - Parameter adding: Keys of epochs not stored yet (an epoch this device is about to
    ///   start), derived with the stored ones; the caller keeps and wipes them.
    package func withSyncKeyChain<Result: Sendable>(
        adding extra: [UInt32: SecureBytes] = [:], _ body: @Sendable (SyncKeyChain) async throws -> Result
    ) async throws -> Result {
        let chain = try await syncKeyChain(adding: extra)
        return try await body(chain)
    }

    private func syncKeyChain(adding extra: [UInt32: SecureBytes] = [:]) async throws -> SyncKeyChain {
        let cache = keys.chainCache
        let vaultID = vaultID
        if extra.isEmpty, !keys.lockRequest.isSet,
           let chain = try await database.read({ db in try cache.chain(matching: vaultID, db) }) {
            return chain
        }
        let stored = try await database.read { db in try SyncEpochRecord.epochKeys(db) }
        defer { for key in stored.values { key.wipe() } }
        return try await keys.syncKeyChain(vaultID: vaultID, epochKeys: stored.merging(extra) { held, _ in held })
    }

    /// Seals `epochKeys` under this vault key and `secret` for the server, which keeps them
    /// for the recovery kit (`SealedEpochKeys`).
    ///
    /// - Throws: `locked`; `invalidArgument` for malformed keys.
    package func sealEpochKeys(_ epochKeys: [UInt32: SecureBytes], firstEpoch: UInt32,
                               secret: SyncSecret) async throws -> Data {
        try await keys.sealEpochKeys(epochKeys, firstEpoch: firstEpoch, vaultID: vaultID, secret: secret)
    }

    /// Opens epoch keys the server keeps for the recovery kit.
    ///
    /// - Throws: `corrupted` when they do not open with this vault key and `secret`; `locked`.
    package func openEpochKeys(_ bytes: Data, secret: SyncSecret) async throws -> SealedEpochKeys.Opened {
        try await keys.openEpochKeys(bytes, vaultID: vaultID, secret: secret)
    }
}

extension Vault {
    #if SyncKeysSPI
    /// Runs `body` with this vault's sync keys: the package's `withSyncKeys(_:)` for code outside
    /// this package that must seal like a real device, namely the sync server's
    /// end-to-end tests (`Server/`) and the sealing benchmark, which depend on the library
    /// by path with the package trait `SyncKeysSPI`. Compiled only under that trait, off by
    /// default: no app's build holds it, whatever it imports (`NoBypassSwitchesTests`).
    ///
    /// - Throws: `MedVaultError.Code.locked` when the vault is locked; what `body` throws.
    @_spi(Sync)
    public func withSyncKeysSPI<Result>(_ body: (SyncKeys) throws -> Result) async throws -> Result {
        try await withSyncKeys(body)
    }
    #endif

    /// The keyring file as sync publishes it: without this device's audit record (format
    /// version 1, readable by devices of earlier builds; the record is this device's
    /// alone), re-tagged under the vault key.
    ///
    /// - Throws: `locked`; `corrupted` for a keyring the vault key does not authenticate;
    ///   file errors.
    package func keyringForPublication(_ keyring: Keyring) async throws -> Keyring {
        try await keys.withoutAuditRecord(keyring)
    }
}
