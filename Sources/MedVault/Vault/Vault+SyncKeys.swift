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
