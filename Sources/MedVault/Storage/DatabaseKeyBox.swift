import Foundation
import MedVaultKeys

/// The key every connection of a pool is opened with: a private copy, replaced by a
/// key rotation and wiped when the pool closes.
final class DatabaseKeyBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: `current` is read and replaced only under `lock`;
    // SecureBytes is itself Sendable.
    private let lock = NSLock()
    private var current: SecureBytes

    /// - Throws: `locked` when `key` was wiped.
    init(copying key: SecureBytes) throws {
        current = try key.copy()
    }

    /// The key to open a connection with.
    var key: SecureBytes { lock.withLock { current } }

    /// Replaces the key with `replacement` (a copy this box now owns), wiping the old one.
    func replace(with replacement: SecureBytes) {
        let old: SecureBytes = lock.withLock {
            let old = current
            current = replacement
            return old
        }
        old.wipe()
    }

    /// Wipes the key.
    func wipe() {
        key.wipe()
    }
}
