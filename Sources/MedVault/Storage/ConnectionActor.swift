import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// Owns one SQLCipher connection and runs transactions on it, one at a time, on
/// the connection's own thread.
actor ConnectionActor {
    private let thread: ConnectionThread
    private let path: String
    private let key: SecureBytes
    private let role: DatabaseConnection.Role
    private let configuration: DatabaseConfiguration
    private var connection: DatabaseConnection?
    private var isClosed = false
    nonisolated let interrupter = ConnectionInterrupter()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    init(path: String, key: SecureBytes, role: DatabaseConnection.Role,
         configuration: DatabaseConfiguration, name: String) {
        self.thread = ConnectionThread(name: name)
        self.path = path
        self.key = key
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
        let opened = try DatabaseConnection.open(path: path, key: key, role: role, configuration: configuration)
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

    /// Runs `body` in a transaction: committed when it returns, rolled back when it
    /// throws or the task is cancelled.
    func transaction<Value: Sendable>(
        ticket: UInt64, immediate: Bool, _ body: @Sendable (DatabaseConnection) throws -> Value
    ) throws -> Value {
        let connection = try openedConnection()
        if Task.isCancelled { throw DatabasePool.cancelledError }
        interrupter.begin(ticket)
        defer { interrupter.end() }
        try connection.execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
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

    /// Closes the connection and wipes this actor's copy of the key.
    func close() {
        isClosed = true
        interrupter.attach(nil)
        connection?.close()
        connection = nil
        key.wipe()
    }
}
