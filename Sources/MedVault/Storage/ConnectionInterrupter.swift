import CSQLCipher
import Foundation

/// Interrupts the statement a cancelled task is running, and only that task's.
///
/// `sqlite3_interrupt` is documented as safe to call from any thread while the
/// connection is open. Each transaction runs under a ticket; a cancellation handler
/// interrupts the connection only while its own ticket is the active one, so a task
/// that is cancelled while it waits in line never interrupts somebody else's work.
final class ConnectionInterrupter: @unchecked Sendable {
    // Safety of @unchecked Sendable: every stored property is read and written only
    // while holding `lock`; `handle` is cleared under the lock before the connection
    // closes, so sqlite3_interrupt never sees a closed connection.
    private let lock = NSLock()
    private var handle: OpaquePointer?
    private var nextTicket: UInt64 = 0
    private var activeTicket: UInt64?

    func attach(_ handle: OpaquePointer?) {
        lock.lock(); defer { lock.unlock() }
        self.handle = handle
    }

    func makeTicket() -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        nextTicket += 1
        return nextTicket
    }

    func begin(_ ticket: UInt64) {
        lock.lock(); defer { lock.unlock() }
        activeTicket = ticket
    }

    func end() {
        lock.lock(); defer { lock.unlock() }
        activeTicket = nil
    }

    func interrupt(_ ticket: UInt64) {
        lock.lock(); defer { lock.unlock() }
        if let handle, activeTicket == ticket {
            medvault_sqlite3_interrupt(handle)
        }
    }
}
