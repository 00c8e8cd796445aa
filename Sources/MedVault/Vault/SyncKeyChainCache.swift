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
/// database, in place (``chain(matching:)``: constant-time comparison with the row's bytes,
/// nothing copied), so an epoch another connection or process adopted is derived at the
/// next request, never missed. A chain replaced by a newer one is not wiped here, since a
/// sync pass may still be sealing with it: its buffers are zeroed and unmapped when its
/// last holder lets it go (`sodium_free`). `Vault.lock()` wipes the kept chain at once
/// (``wipe()``): a sync pass still using it then fails with `locked`, as every other
/// operation racing a lock does.
final class SyncKeyChainCache: @unchecked Sendable {
    // Safety of @unchecked Sendable: `kept` is read and written only under `lock`; what it
    // holds (`SecureBytes`, `SyncKeyChain`) is itself Sendable.
    private let lock = NSLock()
    private var kept: (vaultID: UUID, epochKeys: [UInt32: SecureBytes], chain: SyncKeyChain)?

    /// The kept chain if it was derived, for `vaultID`, from exactly the epoch keys stored
    /// in `db` (read with `SyncEpochRecord.forEachEpochKey`).
    func chain(matching vaultID: UUID, _ db: DatabaseConnection) throws -> SyncKeyChain? {
        try lock.withLock {
            guard let kept, kept.vaultID == vaultID else { return nil }
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
    }

    /// The kept chain if it was derived from exactly `epochKeys` for `vaultID`.
    func chain(for epochKeys: [UInt32: SecureBytes], vaultID: UUID) -> SyncKeyChain? {
        lock.withLock {
            guard let kept, kept.vaultID == vaultID, kept.epochKeys.count == epochKeys.count else { return nil }
            for (epoch, key) in epochKeys {
                guard let held = kept.epochKeys[epoch], held == key else { return nil }
            }
            return kept.chain
        }
    }

    /// Keeps `chain`, derived from `epochKeys` (copied: the caller wipes its own).
    func keep(_ chain: SyncKeyChain, for epochKeys: [UInt32: SecureBytes], vaultID: UUID) throws {
        let copies = try epochKeys.mapValues { try $0.copy() }
        let replaced = lock.withLock {
            defer { kept = (vaultID, copies, chain) }
            return kept
        }
        for key in replaced?.epochKeys.values ?? [:].values { key.wipe() }
    }

    /// Wipes the kept chain and keys (the vault locks).
    func wipe() {
        let dropped = lock.withLock {
            defer { kept = nil }
            return kept
        }
        dropped?.chain.wipe()
        for key in dropped?.epochKeys.values ?? [:].values { key.wipe() }
    }
}
