import Foundation
import MedVault

/// Smuggles a transaction out of its closure, as a misbehaving app might.
final class EscapedTransaction: @unchecked Sendable {
    // Safety of @unchecked Sendable: `stored` is only touched while holding `lock`.
    private let lock = NSLock()
    private var stored: VaultTransaction?

    func keep(_ transaction: VaultTransaction) { lock.withLock { stored = transaction } }

    var transaction: VaultTransaction? { lock.withLock { stored } }
}

/// A flag one thread sets and another polls.
final class Flag: Sendable {
    // Safety: `value` is only touched while holding `lock`.
    private nonisolated(unsafe) var value = false
    private let lock = NSLock()

    func set() { lock.withLock { value = true } }

    var isSet: Bool { lock.withLock { value } }
}
