import Foundation
import MedVaultKeys

extension Vault {
    /// Runs `body` with this vault's sync keys (derived from the vault key, see
    /// `SyncKeys`), wiped when `body` returns or throws.
    ///
    /// Package API: the sync module seals and opens envelopes with it; an app never
    /// needs the keys. Keys derived before ``lock()`` stay usable until `body` returns,
    /// so keep `body` short (seal or open one batch).
    ///
    /// - Throws: `MedVaultError.Code.locked` when the vault is locked; what `body` throws.
    package func withSyncKeys<Result>(_ body: (SyncKeys) throws -> Result) async throws -> Result {
        let syncKeys = try await keys.syncKeys(vaultID: vaultID)
        defer { syncKeys.wipe() }
        try await audit.record(.sync)
        return try body(syncKeys)
    }
}

extension Vault {
    /// Runs an asynchronous `body` with this vault's sync keys, wiped when it returns or
    /// throws: for the sync engine, which seals inside a write transaction.
    ///
    /// - Throws: `MedVaultError.Code.locked` when the vault is locked; what `body` throws.
    package func withSyncKeys<Result: Sendable>(
        _ body: @Sendable (SyncKeys) async throws -> Result
    ) async throws -> Result {
        let syncKeys = try await keys.syncKeys(vaultID: vaultID)
        defer { syncKeys.wipe() }
        return try await body(syncKeys)
    }

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
