import Foundation
import MedVaultKeys

/// The keys a pool's connections use under the vault key: the audit key the writer MACs
/// entries with, and the root of the professionals' session-signing keys (signing, and
/// pinning a signature to this vault's key when reading it). Set by the `Vault` that owns
/// the pool once it holds the vault key, wiped when the vault locks.
///
/// A pool opened without a vault (a bare `VaultDatabase`) has no keys: its writes append
/// no audit entry (docs/audit.md, "What is not recorded") and it refuses to sign
/// (`locked`).
final class AuditKeyBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: `current` and `signing` are read and replaced only
    // under `lock`; both types are themselves Sendable.
    private let lock = NSLock()
    private var current: AuditKey?
    private var signing: ProfessionalSigningRoot?

    /// The key, or `nil` when the pool has none (or it was wiped).
    var key: AuditKey? { lock.withLock { current } }

    /// The signing root, or `nil` when the pool has none (wiped, it throws `locked`).
    var signingRoot: ProfessionalSigningRoot? { lock.withLock { signing } }

    /// Installs `key` and `signingRoot`, wiping any previous ones.
    func install(_ key: AuditKey, signingRoot: ProfessionalSigningRoot) {
        let (oldKey, oldRoot) = lock.withLock {
            let old = (current, signing)
            current = key
            signing = signingRoot
            return old
        }
        oldKey?.wipe()
        oldRoot?.wipe()
    }

    /// Installs a signing root alone: a pool used without a `Vault` (the SQL store's own
    /// tests) signs and pins with a root of its own, and writes no audit entry.
    func installSigningRoot(_ signingRoot: ProfessionalSigningRoot) {
        let old = lock.withLock {
            let old = signing
            signing = signingRoot
            return old
        }
        old?.wipe()
    }

    /// Wipes the keys (without forgetting them): later writes fail with `locked` rather
    /// than write an entry that could not be MACed or a signature that could not be signed.
    func wipe() {
        let (key, root) = lock.withLock { (current, signing) }
        key?.wipe()
        root?.wipe()
    }
}
