import Foundation
import MedVaultKeys

/// The sync keys an unlocked vault derived last, kept while the epoch keys they came from
/// stay the same.
///
/// Why: a sync pass asks for the keys several times (seal, sign, open, verify), and each
/// derivation allocates six guarded buffers (`sodium_malloc`: an `mmap` and three
/// `mprotect`s each, undone at release). Derived afresh every time, they made one change's
/// trip between two devices 1.7× slower than before epochs (`make bench`, Y).
///
/// The cache is checked against the epoch keys read from the database at each request
/// (constant-time comparison), so an epoch another connection or process adopted is
/// derived at the next request, never missed. A chain replaced by a newer one is not
/// wiped here, since a sync pass may still be sealing with it: its buffers are zeroed and
/// unmapped when its last holder lets it go (`sodium_free`). `Vault.lock()` wipes the
/// kept chain at once: a sync pass still using it then fails with `locked`, as every
/// other operation racing a lock does.
///
/// Not `Sendable`: it lives inside `VaultKeySession`, an actor.
struct SyncKeyChainCache {
    private var vaultID: UUID?
    private var epochKeys: [UInt32: SecureBytes] = [:]
    private var chain: SyncKeyChain?

    /// The kept chain if it was derived from exactly `epochKeys` for `vaultID`.
    func chain(for epochKeys: [UInt32: SecureBytes], vaultID: UUID) -> SyncKeyChain? {
        guard let chain, self.vaultID == vaultID, self.epochKeys.count == epochKeys.count else { return nil }
        for (epoch, key) in epochKeys {
            guard let kept = self.epochKeys[epoch], kept == key else { return nil }
        }
        return chain
    }

    /// Keeps `chain`, derived from `epochKeys` (copied: the caller wipes its own).
    mutating func keep(_ chain: SyncKeyChain, for epochKeys: [UInt32: SecureBytes], vaultID: UUID) throws {
        let copies = try epochKeys.mapValues { try $0.copy() }
        forget()
        self.vaultID = vaultID
        self.epochKeys = copies
        self.chain = chain
    }

    /// Wipes the kept chain (the vault locks).
    mutating func wipe() {
        chain?.wipe()
        forget()
    }

    /// Drops the kept chain, wiping the epoch keys' copies.
    private mutating func forget() {
        for key in epochKeys.values { key.wipe() }
        epochKeys = [:]
        chain = nil
        vaultID = nil
    }
}
