import Foundation
import MedVaultCore

/// The sync keys of every epoch a device holds: the newest (``current``) seals and proves,
/// each opens the envelopes sealed in its epoch (docs/sync.md, "Epochs").
///
/// Epoch 0's keys derive from the vault key alone; a vault registered by this version
/// starts at epoch 1, and each revocation starts the next. Whoever derived a chain wipes
/// it (``wipe()``); one a vault hands out (`Vault.withSyncKeyChain`) is the vault's, kept
/// while it is unlocked and wiped by its `lock()`: never wipe that one.
public struct SyncKeyChain: Sendable {
    /// The keys of the newest epoch held.
    public let current: SyncKeys
    private let byEpoch: [UInt32: SyncKeys]

    /// Derives the keys of epoch 0 and of every epoch in `epochKeys`.
    ///
    /// - Throws: `invalidArgument` for a key that is not 32 bytes; `locked` when a key was wiped.
    public init(vaultKey: SecureBytes, vaultID: UUID, epochKeys: [UInt32: SecureBytes]) throws {
        var byEpoch: [UInt32: SyncKeys] = [0: try SyncKeys(vaultKey: vaultKey, vaultID: vaultID)]
        for (epoch, key) in epochKeys where epoch > 0 {
            byEpoch[epoch] = try SyncKeys(vaultKey: vaultKey, vaultID: vaultID, epoch: epoch, epochKey: key)
        }
        self.byEpoch = byEpoch
        // Never nil: epoch 0 is always there.
        self.current = byEpoch[byEpoch.keys.max() ?? 0] ?? byEpoch[0]!
    }

    /// The newest epoch held.
    public var epoch: UInt32 { current.epoch }

    /// The keys of `epoch`.
    ///
    /// - Throws: `corrupted` when this device holds no key of `epoch` (an envelope sealed in
    ///   an epoch it was never given, or a number no device made).
    public func keys(epoch: UInt32) throws -> SyncKeys {
        guard let keys = byEpoch[epoch] else {
            throw MedVaultError(.corrupted, reason: "a sync message is sealed in an epoch this device holds no key of")
        }
        return keys
    }

    /// Whether this device holds the keys of `epoch`.
    public func holds(epoch: UInt32) -> Bool { byEpoch[epoch] != nil }

    /// Whether any epoch's keys were wiped.
    public var wasWiped: Bool { byEpoch.values.contains { $0.wasWiped } }

    /// Wipes every epoch's keys.
    public func wipe() {
        for keys in byEpoch.values { keys.wipe() }
    }
}
