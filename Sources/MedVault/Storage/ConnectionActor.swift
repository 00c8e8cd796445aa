import Foundation
import MedVaultCore
import MedVaultKeys

/// Owns one SQLCipher connection and runs transactions on it, one at a time.
///
/// A short job that finds the connection idle runs at once on the caller's thread:
/// most calls are short, and a hop to another thread and back costs more than many
/// of them. One that finds it busy, and every long job (bulk writes, migrations,
/// maintenance), waits in line on the connection's own thread: blocking there never
/// stalls Swift's cooperative thread pool. See ``perform(_:_:)``.
actor ConnectionActor {
    private let thread: ConnectionThread
    private nonisolated let ownership = ConnectionOwnership()
    private nonisolated let connection: LazyConnection
    nonisolated let interrupter = ConnectionInterrupter()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    init(path: String, keyBox: DatabaseKeyBox, role: DatabaseConnection.Role,
         configuration: DatabaseConfiguration, name: String, checkpoints: CheckpointScheduler? = nil,
         commits: CommitSignal? = nil, auditKeys: AuditKeyBox? = nil) {
        self.thread = ConnectionThread(name: name)
        self.connection = LazyConnection(path: path, keyBox: keyBox, role: role,
                                         configuration: configuration, interrupter: interrupter,
                                         checkpoints: checkpoints, commits: commits, auditKeys: auditKeys)
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

    /// Runs `body` with the connection, which it has to itself: at once on the calling
    /// thread when `duration` is ``VaultDatabase/ExpectedDuration/short`` and the
    /// connection is idle with nobody waiting for it; otherwise in line on the
    /// connection's own thread.
    ///
    /// Being `nonisolated` (and this module built without
    /// `NonisolatedNonsendingByDefault`), it runs on the global concurrent executor
    /// even when called from the main actor: the fast path never runs SQLite on the
    /// main thread. Keep it so (mark it `@concurrent` if that feature is adopted).
    nonisolated func perform<Value: Sendable>(
        _ duration: VaultDatabase.ExpectedDuration, _ body: @Sendable (LazyConnection) throws -> Value
    ) async throws -> Value {
        if duration == .short && ownership.claimIfIdle() {
            let value: Value?
            do {
                defer { ownership.release() }
                value = try connection.withoutWaiting(body)
            }
            if let value { return value }
            // The connection was not open yet, or another connection held a lock this
            // job needs: the wait for it happens on the connection's own thread.
        }
        ownership.joinLine()
        return try await performInLine(body)
    }

    /// Runs `body` in a transaction (see ``LazyConnection/transaction(ticket:kind:_:)``),
    /// placed as ``perform(_:_:)`` places it.
    nonisolated func transaction<Value: Sendable>(
        ticket: UInt64, kind: TransactionKind, duration: VaultDatabase.ExpectedDuration,
        _ body: @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        try await perform(duration) { connection in try connection.transaction(ticket: ticket, kind: kind, body) }
    }

    /// Runs `write` as ``perform(_:_:)`` places it: alone, at once on the calling thread
    /// when the connection is idle; otherwise in line, where the first caller to reach
    /// the connection's thread takes every write waiting in `queue` into one group
    /// commit (``LazyConnection/commitGroup(_:interrupter:)``). When this returns,
    /// `write` has been settled, by this caller's group or an earlier one.
    nonisolated func performGrouped(
        _ write: GroupedWrite, queue: GroupCommitQueue, duration: VaultDatabase.ExpectedDuration
    ) async {
        queue.enqueue(write)
        if duration == .short && ownership.claimIfIdle() {
            let settled: Bool
            do {
                defer { ownership.release() }
                if let own = queue.take(write) {
                    if let commits = connection.commitAloneWithoutWaiting(own, interrupter: interrupter) {
                        queue.recordCommits(commits)
                        settled = true
                    } else {
                        // Another process holds the write lock (or the writer is not open
                        // yet): nothing ran. The wait happens on the writer's own thread.
                        queue.putBack(own)
                        settled = false
                    }
                } else {
                    settled = true
                }
            }
            if settled { return }
        }
        ownership.joinLine()
        let interrupter = interrupter
        _ = try? await performInLine { connection in
            let group = queue.takeAll(limit: LazyConnection.groupCommitLimit)
            queue.recordCommits(connection.commitGroup(group, interrupter: interrupter))
        }
    }

    /// Runs `body` without a transaction (for PRAGMAs that refuse to run inside one),
    /// placed as ``perform(_:_:)`` places it.
    nonisolated func withConnection<Value: Sendable>(
        _ duration: VaultDatabase.ExpectedDuration, _ body: @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        try await perform(duration) { connection in try body(try connection.opened()) }
    }

    /// Makes the connection's ``CommitDurability/walOnly`` commits durable (see
    /// ``LazyConnection/syncDeferredCommits()``), placed as ``perform(_:_:)`` places it.
    /// An fsync: on the connection's own thread (`.long`), never a cooperative one.
    nonisolated func syncDeferredCommits(force: Bool = false) async throws {
        try await perform(.long) { connection in try connection.syncDeferredCommits(force: force) }
    }

    /// Closes this actor's connection, runs `body` (which works on the file with no
    /// connection of this actor open), and lets the next transaction reopen.
    nonisolated func maintenance(_ body: @Sendable () throws -> Void) async throws {
        try await perform(.long) { connection in try connection.maintenance(body) }
    }

    /// Closes the connection for good; later calls fail with `locked`.
    nonisolated func close() async {
        _ = try? await perform(.long) { connection in connection.close() }
    }

    /// Closes the connection; the next transaction opens a new one, with the pool's
    /// key as it is then.
    nonisolated func suspend() async {
        _ = try? await perform(.long) { connection in connection.suspend() }
    }

    /// Starts `work` as a task that runs on this connection's own thread, not on
    /// Swift's cooperative pool: callers that keep every cooperative thread busy (a
    /// loop of short writes, which run on the caller's thread and never suspend) would
    /// otherwise keep it from starting. Before macOS 15 / iOS 18 (no task executors),
    /// a plain detached task.
    nonisolated func launch(_ work: @escaping @Sendable () async -> Void) {
        if #available(macOS 15.0, iOS 18.0, *) {
            Task.detached(executorPreference: thread) { await work() }
        } else {
            Task.detached { await work() }
        }
    }

    /// How many callers wait in line (for tests).
    nonisolated var queuedCount: Int { ownership.queuedCount }

    /// Waits, on the connection's thread, until the connection is free, for a caller
    /// that joined the line; runs `body` holding it.
    private func performInLine<Value: Sendable>(
        _ body: @Sendable (LazyConnection) throws -> Value
    ) throws -> Value {
        ownership.claimInLine()
        defer { ownership.release() }
        return try body(connection)
    }
}
