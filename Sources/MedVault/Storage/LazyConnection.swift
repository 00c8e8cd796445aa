import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// The connection of one ``ConnectionActor``: opened at its first use, closed for
/// maintenance and reopened after, and the transaction logic that runs on it.
///
/// Only the current holder of the actor's ``ConnectionOwnership`` calls into it.
final class LazyConnection: @unchecked Sendable {
    // Safety of @unchecked Sendable: `connection`, `isClosed`, `hasDeferredSync`,
    // `logCreatedSinceOpen` and `isRefusingToWait` are read and written only by the holder of the owning actor's
    // ConnectionOwnership, which admits one holder at a time; its lock orders each
    // holder's writes before the next one's reads.
    let path: String
    private let keyBox: DatabaseKeyBox
    private let role: DatabaseConnection.Role
    private let configuration: DatabaseConfiguration
    private let interrupter: ConnectionInterrupter
    private let checkpoints: CheckpointScheduler?
    /// Told the tables each committed write transaction logged changes to (the writer's).
    let commits: CommitSignal?
    /// The audit key of the writer's entries (docs/audit.md) and the signing root (readers
    /// pin signatures with it); `nil` on the checkpointer.
    private let auditKeys: AuditKeyBox?
    private(set) var connection: DatabaseConnection?
    private var isClosed = false
    /// Whether a commit since the last `full` one was ``CommitDurability/walOnly``: the
    /// log holds committed frames not yet synced (see ``syncDeferredCommits()``).
    var hasDeferredSync = false
    /// Whether the write-ahead log did not exist when this connection opened and this
    /// connection has begun no write since: then an empty log is one SQLite created, never
    /// a log truncated to 0 bytes (a truncation SQLite does not sync, so the disk may
    /// still hold older frames). See ``beginDeferringSync(_:)``.
    var logCreatedSinceOpen = false
    /// Whether the busy timeout is 0 for a job on the fast path (see
    /// LazyConnection+FastPath.swift); cleared when it is restored.
    var isRefusingToWait = false

    init(path: String, keyBox: DatabaseKeyBox, role: DatabaseConnection.Role,
         configuration: DatabaseConfiguration, interrupter: ConnectionInterrupter,
         checkpoints: CheckpointScheduler? = nil, commits: CommitSignal? = nil, auditKeys: AuditKeyBox? = nil) {
        self.checkpoints = checkpoints
        self.auditKeys = auditKeys
        self.commits = commits
        self.path = path
        self.keyBox = keyBox
        self.role = role
        self.configuration = configuration
        self.interrupter = interrupter
    }

    /// The open connection's handle, or `nil` when it is not open (never opens it).
    var openHandle: OpaquePointer? {
        isClosed ? nil : connection?.handle
    }

    /// The busy timeout the connection was configured with.
    var busyTimeoutMilliseconds: Int32 { configuration.busyTimeoutMilliseconds }

    /// The open connection, opened now if it is not yet.
    func opened() throws -> DatabaseConnection {
        if isClosed { throw VaultDatabase.closedError }
        if let connection { return connection }
        let logAbsent = !DatabaseFile.logExists(of: path)
        #if BenchmarkSwitches
        let started = ContinuousClock.now
        #endif
        let opened = try DatabaseConnection.open(path: path, key: keyBox.key, role: role, configuration: configuration)
        checkpoints?.install(on: opened.handle)
        #if BenchmarkSwitches
        opened.changeLog.isDisabled = configuration._changeLogDisabled
        opened.changeLog.audit.isDisabled = configuration._auditTrailDisabled
        // Not the checkpoint connection: its rounds run beside the calls a benchmark takes apart.
        if let probe = configuration._statementProbe, role != .checkpointer {
            probe.recordConnectionOpen(.now - started)
            probe.install(on: opened.handle)
            opened.probe = probe
        }
        #endif
        opened.changeLog.audit.keys = auditKeys
        connection = opened
        logCreatedSinceOpen = logAbsent
        interrupter.attach(opened.handle)
        return opened
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it
    /// throws or the task is cancelled.
    func transaction<Value>(
        ticket: UInt64, kind: ConnectionActor.TransactionKind, _ body: (DatabaseConnection) throws -> Value
    ) throws -> Value {
        let connection = try opened()
        // The ticket first: a cancellation landing after the check below then
        // interrupts this transaction's statements instead of finding nothing to stop.
        interrupter.begin(ticket)
        defer { interrupter.end() }
        if Task.isCancelled { throw VaultDatabase.cancelledError }
        connection.refusesWrites = kind == .readOnWriter
        defer { connection.refusesWrites = false }
        try connection.execute(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        if kind == .write {
            // The write lock is held: on the fast path, what follows waits as in line,
            // so the body never runs twice (LazyConnection+FastPath.swift).
            restoreBusyTimeout()
            connection.sawBusy = false
            logCreatedSinceOpen = false
            connection.changeLog.transactionBegan()
        }
        do {
            let value = try body(connection)
            if Task.isCancelled { throw VaultDatabase.cancelledError }
            try connection.execute("COMMIT")
            if kind == .write { commits?.notify(connection.changeLog.takeCommittedTables()) }
            return value
        } catch {
            if medvault_sqlite3_get_autocommit(connection.handle) == 0 {
                try? connection.execute("ROLLBACK")
            }
            if let error = error as? MedVaultError, error.sqliteResultCode?.primary == .interrupt {
                throw VaultDatabase.cancelledError
            }
            throw error
        }
    }

    /// Checkpoints the WAL away and closes the connection, then runs `body`, which works
    /// on the file with no connection of this actor open. The next use reopens.
    func maintenance(_ body: () throws -> Void) throws {
        if isClosed { throw VaultDatabase.closedError }
        if let connection {
            // Leave no WAL behind: the file is about to be replaced.
            try connection.executeScript("PRAGMA wal_checkpoint(TRUNCATE);")
        }
        suspend()
        try body()
    }

    /// Closes the connection for good; later uses fail with `locked`.
    func close() {
        isClosed = true
        suspend()
    }

    /// Closes the connection; the next use opens a new one, with the pool's key as it
    /// is then.
    func suspend() {
        interrupter.attach(nil)
        connection?.close()
        connection = nil
    }
}
