import Foundation
import MedVaultKeys

/// The sync keys an unlocked vault derived last, kept while the epoch keys they came from
/// stay the same.
///
/// Why: a sync pass asks for the keys several times (seal, sign, open, verify), and each
/// derivation allocates six guarded buffers (`sodium_malloc`: an `mmap` and three
/// `mprotect`s each, undone at release), and each read of the stored epoch keys one more
/// per key. Done afresh every time, they made one change's trip between two devices 1.7×
/// slower than before epochs (`make bench`, Y).
///
/// At each request the kept copies are compared with the epoch keys stored in the
/// database, in place (``chain(matching:_:)``: constant-time comparison with the row's
/// bytes, nothing copied), so an epoch another connection or process adopted is derived
/// at the next request, never missed. A chain replaced by a newer one is not wiped then,
/// since a sync pass may still be sealing with it; it is retired, and `Vault.lock()` wipes
/// the kept chain and every retired one at once (``wipe()``): a sync pass still using one
/// then fails with `locked`, as every other operation racing a lock does. A kept chain
/// found wiped (a caller broke the rule of `SyncKeyChain`) is derived again, not returned.
final class SyncKeyChainCache: @unchecked Sendable {
    // Safety of @unchecked Sendable: `kept` and `retired` are read and written only under
    // `lock`; what they hold (`SecureBytes`, `SyncKeyChain`) is itself Sendable.
    private let lock = NSLock()
    private var kept: Kept?
    /// Chains replaced while the vault was unlocked (one per epoch change: few).
    private var retired: [SyncKeyChain] = []

    private struct Kept {
        let vaultID: UUID
        let epochKeys: [UInt32: SecureBytes]
        let chain: SyncKeyChain
    }

    /// The kept chain if it was derived, for `vaultID`, from exactly the epoch keys stored
    /// in `db`. The cache's lock is not held while the rows are read.
    func chain(matching vaultID: UUID, _ db: DatabaseConnection) throws -> SyncKeyChain? {
        guard let kept = lock.withLock({ kept }), kept.vaultID == vaultID, !kept.chain.wasWiped else { return nil }
        var count = 0
        var matches = true
        try SyncEpochRecord.forEachEpochKey(db) { epoch, bytes in
            count += 1
            guard matches, let key = kept.epochKeys[epoch] else {
                matches = false
                return
            }
            matches = key.constantTimeEquals(bytes)
        }
        return matches && count == kept.epochKeys.count ? kept.chain : nil
    }

    /// The kept chain if it was derived from exactly `epochKeys` for `vaultID`.
    func chain(for epochKeys: [UInt32: SecureBytes], vaultID: UUID) -> SyncKeyChain? {
        guard let kept = lock.withLock({ kept }), kept.vaultID == vaultID, !kept.chain.wasWiped,
              kept.epochKeys.count == epochKeys.count else { return nil }
        for (epoch, key) in epochKeys {
            guard let held = kept.epochKeys[epoch], held == key else { return nil }
        }
        return kept.chain
    }

    /// Keeps `chain`, derived from `epochKeys` (copied: the caller wipes its own); the
    /// chain it replaces is retired.
    func keep(_ chain: SyncKeyChain, for epochKeys: [UInt32: SecureBytes], vaultID: UUID) throws {
        let copies = try epochKeys.mapValues { try $0.copy() }
        let replaced = lock.withLock {
            defer { kept = Kept(vaultID: vaultID, epochKeys: copies, chain: chain) }
            if let kept { retired.append(kept.chain) }
            return kept
        }
        for key in replaced?.epochKeys.values ?? [:].values { key.wipe() }
    }

    /// Wipes the kept chain, the retired ones and the kept keys (the vault locks).
    func wipe() {
        let (dropped, chains) = lock.withLock {
            defer {
                kept = nil
                retired = []
            }
            return (kept, retired + (kept.map { [$0.chain] } ?? []))
        }
        for chain in chains { chain.wipe() }
        for key in dropped?.epochKeys.values ?? [:].values { key.wipe() }
    }
}
