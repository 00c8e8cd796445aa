import CSQLCipher
import Foundation
import MedVaultCore

/// One caller's write transaction body, waiting for the writer.
///
/// Writes that find the writer busy do not each pay for a commit of their own: the
/// first of them to reach the writer's thread takes every write waiting at that moment
/// and runs them as one group commit (see ``LazyConnection/commitGroup(_:interrupter:)``):
/// one `BEGIN IMMEDIATE`, each body in its own savepoint, one `COMMIT` — one `fsync`
/// for all of them. A body that throws, or whose task is cancelled, rolls back its own
/// savepoint only and fails its own caller only; the others commit. Each caller returns
/// only after the `COMMIT` that made its write durable.
final class GroupedWrite: @unchecked Sendable {
    // Safety of @unchecked Sendable: `outcome`, `isCancelled` and `isTaken` are read
    // and written only while holding `lock`; `body` and `ticket` are immutable. The body
    // runs on one thread at a time: the holder of the writer that took this write.
    private let lock = NSLock()
    private var outcome: Result<Void, any Error>?
    private var isCancelled = false
    private var isTaken = false
    /// The interrupter ticket statements of this body run under.
    let ticket: UInt64
    /// The caller's body; it keeps its own return value.
    let body: (DatabaseConnection) throws -> Void
    /// How the caller's commit must reach the disk; a group commits `full` if any of
    /// its writes asks for it.
    let durability: CommitDurability

    init(ticket: UInt64, durability: CommitDurability = .full, body: @escaping (DatabaseConnection) throws -> Void) {
        self.ticket = ticket
        self.durability = durability
        self.body = body
    }

    /// Marks the caller's task cancelled: a body not yet run is skipped, one running
    /// is rolled back to its savepoint when it returns.
    func cancel() {
        lock.withLock { isCancelled = true }
    }

    var wasCancelled: Bool { lock.withLock { isCancelled } }

    /// Claims the write for the group about to run; `false` when another group has it.
    func take() -> Bool {
        lock.withLock {
            if isTaken { return false }
            isTaken = true
            return true
        }
    }

    /// Gives the claim back, for a write taken by a caller that then found it had to
    /// wait (``GroupCommitQueue/putBack(_:)``); nothing of it ran.
    func untake() {
        lock.withLock { isTaken = false }
    }

    /// Records how the write ended; only the first outcome counts.
    func settle(_ result: Result<Void, any Error>) {
        lock.withLock { if outcome == nil { outcome = result } }
    }

    /// How the write ended: `nil` while it has not run.
    var result: Result<Void, any Error>? { lock.withLock { outcome } }
}

/// The writes waiting for the writer, in arrival order.
final class GroupCommitQueue: @unchecked Sendable {
    // Safety of @unchecked Sendable: `pending` and `commits` are read and written only while
    // holding `lock`.
    private let lock = NSLock()
    private var pending: [GroupedWrite] = []
    private var commits = 0

    /// How many write transactions committed (for tests).
    var commitCount: Int { lock.withLock { commits } }

    func recordCommits(_ count: Int) {
        lock.withLock { commits += count }
    }

    func enqueue(_ write: GroupedWrite) {
        lock.withLock { pending.append(write) }
    }

    /// Takes every waiting write (at most `limit`), oldest first.
    func takeAll(limit: Int) -> [GroupedWrite] {
        lock.withLock {
            let taken = pending.prefix(limit).filter { $0.take() }
            pending.removeFirst(min(limit, pending.count))
            return Array(taken)
        }
    }

    /// Puts back, at the front of the line, a write that ``take(_:)`` gave its caller
    /// and that did not run: the next group takes it first.
    func putBack(_ write: GroupedWrite) {
        lock.withLock {
            write.untake()
            pending.insert(write, at: 0)
        }
    }

    /// Takes `write` alone if no group has taken it yet.
    func take(_ write: GroupedWrite) -> GroupedWrite? {
        lock.withLock {
            guard let index = pending.firstIndex(where: { $0 === write }) else { return nil }
            pending.remove(at: index)
            return write.take() ? write : nil
        }
    }
}

extension LazyConnection {
    /// The most writes one group commit takes: a bound on how long the first caller of
    /// a group waits for the others' bodies.
    static let groupCommitLimit = 64

    /// Runs `writes` in one transaction, each body in its own savepoint, and settles
    /// every one of them: success only once the `COMMIT` has returned.
    ///
    /// A lone write runs exactly as a transaction of its own (no savepoint). When a
    /// failure ends the whole transaction (SQLite rolls back on some I/O and disk-full
    /// errors), the writes already run in it fail with that error and the rest start
    /// a new transaction.
    /// - Returns: How many transactions committed.
    @discardableResult
    func commitGroup(_ writes: [GroupedWrite], interrupter: ConnectionInterrupter) -> Int {
        var remaining = writes[...]
        var commits = 0
        while !remaining.isEmpty {
            let (left, committed, _) = commitOneTransaction(remaining, interrupter: interrupter, waiting: true)
            remaining = left
            if committed { commits += 1 }
        }
        return commits
    }

    /// Runs `write` alone, as ``commitGroup(_:interrupter:)`` would, but only if the
    /// writer is open and the write lock can be had at once: the fast path of a short
    /// write on its caller's thread, which must never wait for another process.
    ///
    /// - Returns: How many transactions committed (0 or 1; `write` is settled), or `nil`
    ///   when the connection is not open yet or another connection holds the write lock:
    ///   then nothing ran, `write` is not settled, and the caller waits in line instead.
    func commitAloneWithoutWaiting(_ write: GroupedWrite, interrupter: ConnectionInterrupter) -> Int? {
        withoutWaitingForLocks {
            let (_, committed, wouldWait) = commitOneTransaction([write][...], interrupter: interrupter, waiting: false)
            return wouldWait ? nil : (committed ? 1 : 0)
        }
    }

    /// Runs writes from the front of `writes` in one transaction; returns those left
    /// for another transaction (after a failure rolled this one back), and whether it
    /// committed. With `waiting` false (the busy timeout is then 0), a `BEGIN` that finds
    /// the write lock taken returns `wouldWait` and settles nothing; the busy timeout is
    /// restored once the lock is held, so what follows behaves as in line.
    private func commitOneTransaction(
        _ writes: ArraySlice<GroupedWrite>, interrupter: ConnectionInterrupter, waiting: Bool
    ) -> (left: ArraySlice<GroupedWrite>, committed: Bool, wouldWait: Bool) {
        let live = writes.filter { write in
            if write.wasCancelled { write.settle(.failure(VaultDatabase.cancelledError)); return false }
            return true
        }
        guard !live.isEmpty else { return ([], false, false) }
        let connection: DatabaseConnection
        // Only a transaction whose every write asks for it skips the commit's sync
        // (see CommitDurability.swift); FULL is restored after the COMMIT or ROLLBACK.
        var defersSync = false
        defer { if defersSync { restoreFullSync() } }
        do {
            connection = try opened()
            if live.allSatisfy({ $0.durability == .walOnly }) {
                defersSync = true
                try beginDeferringSync(connection)
            } else {
                try connection.execute("BEGIN IMMEDIATE")
            }
            if !waiting { restoreBusyTimeout() }
            logCreatedSinceOpen = false
            connection.changeLog.transactionBegan()
        } catch {
            if !waiting && Self.isBusy(error) { return ([], false, true) }
            for write in live { write.settle(.failure(Self.mapped(error))) }
            return ([], false, false)
        }
        let usesSavepoints = live.count > 1
        var succeeded: [GroupedWrite] = []
        for (position, write) in live.enumerated() {
            // An interrupted write statement rolls back the whole transaction, so a body
            // may be interrupted only while nothing of another caller is in it yet: the
            // first body of a transaction. A later one that is cancelled meanwhile is
            // rolled back to its savepoint when it returns. The ticket first: a
            // cancellation landing after the check below then interrupts this body's
            // statements instead of finding nothing to stop.
            let interruptible = succeeded.isEmpty
            if interruptible { interrupter.begin(write.ticket) }
            defer { if interruptible { interrupter.end() } }
            if write.wasCancelled {
                write.settle(.failure(VaultDatabase.cancelledError))
                continue
            }
            let logged = connection.changeLog.mark()
            do {
                if usesSavepoints { try connection.execute("SAVEPOINT medvault_group_write") }
                try write.body(connection)
                if write.wasCancelled { throw VaultDatabase.cancelledError }
                if usesSavepoints { try connection.execute("RELEASE medvault_group_write") }
                succeeded.append(write)
            } catch {
                write.settle(.failure(Self.mapped(error)))
                if medvault_sqlite3_get_autocommit(connection.handle) != 0 {
                    // SQLite ended the transaction: the writes before this one are gone too.
                    for earlier in succeeded { earlier.settle(.failure(Self.mapped(error))) }
                    return (live.dropFirst(position + 1), false, false)
                }
                if usesSavepoints {
                    do {
                        try connection.execute("ROLLBACK TO medvault_group_write")
                        try connection.execute("RELEASE medvault_group_write")
                        connection.changeLog.restore(logged)
                    } catch {
                        try? connection.execute("ROLLBACK")
                        for earlier in succeeded { earlier.settle(.failure(Self.mapped(error))) }
                        return (live.dropFirst(position + 1), false, false)
                    }
                } else {
                    try? connection.execute("ROLLBACK")
                    return ([], false, false)
                }
            }
        }
        do {
            if succeeded.isEmpty {
                try connection.execute("ROLLBACK")
                return ([], false, false)
            }
            try connection.execute("COMMIT")
            // Cleared only by syncDeferredCommits(): a full commit that wrote no frame syncs nothing.
            if defersSync { hasDeferredSync = true }
            // Observers first: when a caller's write returns, its change was signalled.
            commits?.notify(connection.changeLog.takeCommittedTables())
            for write in succeeded { write.settle(.success(())) }
            return ([], true, false)
        } catch {
            if medvault_sqlite3_get_autocommit(connection.handle) == 0 { try? connection.execute("ROLLBACK") }
            for write in succeeded { write.settle(.failure(Self.mapped(error))) }
            return ([], false, false)
        }
    }

    /// Back to `synchronous = FULL` after a ``CommitDurability/walOnly`` commit.
    ///
    /// SQLite refuses the change inside a transaction, which is left open only when both
    /// the COMMIT and its ROLLBACK failed: the transaction is rolled back again and the
    /// change retried, because closing the connection at a weaker level could
    /// checkpoint and delete the log without syncing it. Only if even that fails is the
    /// connection closed (the next write reopens it with `FULL`).
    func restoreFullSync() {
        guard let connection = try? opened() else { return }
        if (try? connection.executeScript("PRAGMA synchronous = FULL;")) != nil { return }
        try? connection.execute("ROLLBACK")
        if (try? connection.executeScript("PRAGMA synchronous = FULL;")) != nil { return }
        suspend()
    }

    /// An interrupted statement is reported as the caller's cancellation.
    static func mapped(_ error: any Error) -> any Error {
        if let error = error as? MedVaultError, error.sqliteResultCode?.primary == .interrupt {
            return VaultDatabase.cancelledError
        }
        return error
    }
}
