import Foundation
import MedVaultCore
import MedVaultKeys

/// Owns one SQLCipher connection and runs transactions on it, one at a time.
///
/// A transaction that finds the connection idle runs at once on the caller's thread
/// (``transactionClaimed(ticket:kind:_:)``): most calls are short, and a hop to another
/// thread and back costs more than many of them. One that finds it busy waits in line
/// on the connection's own thread (``transaction(ticket:kind:_:)``), as does
/// every connection-level job (migrations, checkpoints, maintenance): blocking there
/// never stalls Swift's cooperative thread pool.
actor ConnectionActor {
    private let thread: ConnectionThread
    private nonisolated let ownership = ConnectionOwnership()
    private nonisolated let connection: LazyConnection
    nonisolated let interrupter = ConnectionInterrupter()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    init(path: String, keyBox: DatabaseKeyBox, role: DatabaseConnection.Role,
         configuration: DatabaseConfiguration, name: String) {
        self.thread = ConnectionThread(name: name)
        self.connection = LazyConnection(path: path, keyBox: keyBox, role: role,
                                         configuration: configuration, interrupter: interrupter)
    }

    deinit {
        interrupter.attach(nil)
        // The connection closes itself in its own deinit.
        thread.stop()
    }

    /// The kinds of transaction this actor runs.
    enum TransactionKind {
        /// `BEGIN DEFERRED` on a read connection.
        case read
        /// `BEGIN IMMEDIATE` on the writer.
        case write
        /// `BEGIN DEFERRED` on the writer, refusing every statement that would write
        /// (``DatabaseConnection/refusesWrites``), as a read connection does.
        case readOnWriter
    }

    /// Takes the connection if it is idle and nobody waits for it; then the caller must
    /// run ``transactionClaimed(ticket:kind:_:)``.
    nonisolated func claimIfIdle() -> Bool {
        ownership.claimIfIdle()
    }

    /// Counts the caller in line; then the caller must run
    /// ``transaction(ticket:kind:_:)``, and until it has, ``claimIfIdle()`` fails.
    nonisolated func joinLine() {
        ownership.joinLine()
    }

    /// Runs `body` in a transaction on the caller's thread, on the connection that
    /// ``claimIfIdle()`` took, and gives the connection back.
    nonisolated func transactionClaimed<Value>(
        ticket: UInt64, kind: TransactionKind, _ body: (DatabaseConnection) throws -> Value
    ) throws -> Value {
        defer { ownership.release() }
        return try connection.transaction(ticket: ticket, kind: kind, body)
    }

    /// Runs `body` in a transaction on the connection's thread, once the connection is
    /// free, for a caller that ``joinLine()`` counted in line: committed when it
    /// returns, rolled back when it throws or the task is cancelled.
    func transaction<Value: Sendable>(
        ticket: UInt64, kind: TransactionKind, _ body: @Sendable (DatabaseConnection) throws -> Value
    ) throws -> Value {
        ownership.claimInLine()
        defer { ownership.release() }
        return try connection.transaction(ticket: ticket, kind: kind, body)
    }

    /// Runs `body` without a transaction (for PRAGMAs that refuse to run inside one).
    func withConnection<Value: Sendable>(
        _ body: @Sendable (DatabaseConnection) throws -> Value
    ) throws -> Value {
        try holding { try body(try connection.opened()) }
    }

    /// Closes this actor's connection, runs `body` (which works on the file with no
    /// connection of this actor open), and lets the next transaction reopen.
    func maintenance(_ body: @Sendable () throws -> Void) throws {
        try holding { try connection.maintenance(body) }
    }

    /// Closes the connection for good; later calls fail with `locked`.
    func close() {
        holding { connection.close() }
    }

    /// Closes the connection; the next transaction opens a new one, with the pool's
    /// key as it is then.
    func suspend() {
        holding { connection.suspend() }
    }

    /// Waits in line, on the connection's thread, until the connection is free; runs
    /// `body` holding it.
    private func holding<Value>(_ body: () throws -> Value) rethrows -> Value {
        ownership.joinLine()
        ownership.claimInLine()
        defer { ownership.release() }
        return try body()
    }
}
