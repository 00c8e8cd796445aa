import Foundation
import MedVaultKeys

/// The key every connection of a pool is opened with: a private copy, replaced by a
/// key rotation and wiped when the pool closes.
final class DatabaseKeyBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: `current` is read and replaced only under `lock`;
    // SecureBytes is itself Sendable.
    private let lock = NSLock()
    private var current: SecureBytes

    init(copying key: SecureBytes) {
        current = Self.copy(of: key)
    }

    /// The key to open a connection with.
    var key: SecureBytes { lock.withLock { current } }

    /// Replaces the key with a copy of `key`, wiping the old one.
    func replace(copying key: SecureBytes) {
        let old: SecureBytes = lock.withLock {
            let old = current
            current = Self.copy(of: key)
            return old
        }
        old.wipe()
    }

    /// Wipes the key.
    func wipe() {
        key.wipe()
    }

    private static func copy(of key: SecureBytes) -> SecureBytes {
        SecureBytes(count: key.count) { copy in key.withUnsafeBytes { copy.copyMemory(from: $0) } }
    }
}
