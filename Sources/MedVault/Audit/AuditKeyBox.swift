import Foundation
import MedVaultKeys

/// The audit key a pool's writer MACs entries with: set by the `Vault` that owns the
/// pool once it holds the vault key, wiped when the vault locks.
///
/// A pool opened without a vault (a bare `VaultDatabase`) has no key: its writes append
/// no audit entry (docs/audit.md, "What is not recorded").
final class AuditKeyBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: `current` is read and replaced only under `lock`;
    // AuditKey is itself Sendable.
    private let lock = NSLock()
    private var current: AuditKey?

    /// The key, or `nil` when the pool has none (or it was wiped).
    var key: AuditKey? { lock.withLock { current } }

    /// Installs `key`, wiping any previous one.
    func install(_ key: AuditKey) {
        let old = lock.withLock {
            let old = current
            current = key
            return old
        }
        old?.wipe()
    }

    /// Wipes and forgets the key: later writes fail with `locked` rather than write an
    /// entry that could not be MACed.
    func wipe() {
        lock.withLock { current }?.wipe()
    }
}
