import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// Owns one SQLCipher connection and runs transactions on it, one at a time, on
/// the connection's own thread.
actor ConnectionActor {
    private let thread: ConnectionThread
    private let path: String
    private let keyBox: DatabaseKeyBox
    private let role: DatabaseConnection.Role
    private let configuration: DatabaseConfiguration
    private var connection: DatabaseConnection?
    private var isClosed = false
    nonisolated let interrupter = ConnectionInterrupter()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    init(path: String, keyBox: DatabaseKeyBox, role: DatabaseConnection.Role,
         configuration: DatabaseConfiguration, name: String) {
        self.thread = ConnectionThread(name: name)
        self.path = path
        self.keyBox = keyBox
        self.role = role
        self.configuration = configuration
    }

    deinit {
        interrupter.attach(nil)
        // The connection closes itself in its own deinit.
        thread.stop()
    }

    /// Opens the connection now rather than at its first transaction.
    func open() throws {
        _ = try openedConnection()
    }

    private func openedConnection() throws -> DatabaseConnection {
        if isClosed { throw DatabasePool.closedError }
        if let connection { return connection }
        let opened = try DatabaseConnection.open(path: path, key: keyBox.key, role: role, configuration: configuration)
        connection = opened
        interrupter.attach(opened.handle)
        return opened
    }

    /// Runs `body` without a transaction (for PRAGMAs that refuse to run inside one).
    func withConnection<Value: Sendable>(
        _ body: @Sendable (DatabaseConnection) throws -> Value
    ) throws -> Value {
        try body(try openedConnection())
    }

    /// The kinds of transaction ``transaction(ticket:kind:_:)`` runs.
    enum TransactionKind {
        /// `BEGIN DEFERRED` on a read connection.
        case read
        /// `BEGIN IMMEDIATE` on the writer.
        case write
        /// `BEGIN DEFERRED` on the writer, refusing every statement that would write
        /// (``DatabaseConnection/refusesWrites``), as a read connection does.
        case readOnWriter
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it
    /// throws or the task is cancelled.
    func transaction<Value: Sendable>(
        ticket: UInt64, kind: TransactionKind, _ body: @Sendable (DatabaseConnection) throws -> Value
    ) throws -> Value {
        let connection = try openedConnection()
        if Task.isCancelled { throw DatabasePool.cancelledError }
        interrupter.begin(ticket)
        defer { interrupter.end() }
        connection.refusesWrites = kind == .readOnWriter
        defer { connection.refusesWrites = false }
        try connection.execute(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let value = try body(connection)
            if Task.isCancelled { throw DatabasePool.cancelledError }
            try connection.execute("COMMIT")
            return value
        } catch {
            if sqlite3_get_autocommit(connection.handle) == 0 {
                try? connection.execute("ROLLBACK")
            }
            if let error = error as? MedVaultError, error.sqliteCode.map({ $0 & 0xFF }) == SQLITE_INTERRUPT {
                throw DatabasePool.cancelledError
            }
            throw error
        }
    }

    /// Closes this actor's connection, runs `body` (which works on the file with no
    /// connection of this actor open), and lets the next transaction reopen.
    func maintenance(_ body: @Sendable () throws -> Void) throws {
        if isClosed { throw DatabasePool.closedError }
        if let connection {
            // Leave no WAL behind: the file is about to be replaced.
            try connection.executeScript("PRAGMA wal_checkpoint(TRUNCATE);")
        }
        suspend()
        try body()
    }

    /// Closes the connection for good; later calls fail with `locked`.
    func close() {
        isClosed = true
        suspend()
    }

    /// Closes the connection; the next transaction opens a new one, with the pool's
    /// key as it is then.
    func suspend() {
        interrupter.attach(nil)
        connection?.close()
        connection = nil
    }
}
