import Foundation

/// Whether a unit of work's transaction is still open: every transactional
/// repository checks it before it touches storage, so a ``VaultTransaction`` kept
/// after its closure returned throws instead of using a finished transaction (in
/// SQL, a connection another caller may own by then).
///
/// Both backends share it, so misuse fails the same way in memory and in SQLCipher.
package final class TransactionScope: @unchecked Sendable {
    // Safety of @unchecked Sendable: `isOpen` is read and written only while holding
    // `lock`, and NSLock is thread-safe by contract.
    private let lock = NSLock()
    private var isOpen = true

    /// The error of a transactional repository used after its unit of work ended.
    package static let endedError = MedVaultError(
        .invalidArgument,
        reason: "the transaction has ended: use a VaultTransaction only inside its write closure")

    package init() {}

    /// Throws ``endedError`` once the unit of work ended.
    package func check() throws {
        guard lock.withLock({ isOpen }) else { throw Self.endedError }
    }

    /// Ends the scope; every later ``check()`` throws.
    package func close() {
        lock.withLock { isOpen = false }
    }
}
