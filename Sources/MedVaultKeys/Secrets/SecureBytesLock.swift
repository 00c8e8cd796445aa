import Foundation

/// The lock that guards a ``SecureBytes`` buffer.
///
/// `NSLock` rather than `Synchronization.Mutex`, which needs macOS 15 / iOS 18.
final class SecureBytesLock: @unchecked Sendable {
    // Safety of @unchecked Sendable: NSLock is thread-safe by contract; this type
    // adds no state of its own.
    private let lock = NSLock()

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
