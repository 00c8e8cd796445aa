import Foundation
import MedVault

/// Smuggles a transaction out of its closure, as a misbehaving app might.
package final class EscapedTransaction: @unchecked Sendable {
    // Safety of @unchecked Sendable: `stored` is only touched while holding `lock`.
    private let lock = NSLock()
    private var stored: VaultTransaction?

    /// Nothing kept yet.
    package init() {}

    package func keep(_ transaction: VaultTransaction) { lock.withLock { stored = transaction } }

    package var transaction: VaultTransaction? { lock.withLock { stored } }
}

/// A flag one thread sets and another polls.
package final class Flag: Sendable {
    // Safety: `value` is only touched while holding `lock`.
    private nonisolated(unsafe) var value = false
    private let lock = NSLock()

    /// Not set.
    package init() {}

    package func set() { lock.withLock { value = true } }

    package var isSet: Bool { lock.withLock { value } }
}
