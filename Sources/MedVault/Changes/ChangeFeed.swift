import Foundation
import MedVaultCore

/// Tells a vault's observers which tables committed changes touched: the vault's own
/// commits at once, another process's when it polls or is asked to check.
///
/// The source of truth is the change log: after a commit of this vault's writer that
/// logged a change to a watched table (``CommitSignal`` passes the tables), on the
/// polling timer or on ``check()``, the feed reads the log's entries past the last
/// sequence it has seen (`ChangeLogReader.changedTables`) and notifies the subscribers
/// watching one of their tables. So a write by another `Vault` in this process or by
/// another process is noticed like a repository call — and a commit that logged
/// nothing (raw SQL on a table that did not opt in) notifies no one.
///
/// Nothing runs while nobody subscribes: the first subscriber starts the pump (which
/// waits for commit signals, coalescing those that arrive while it reads) and the
/// polling timer; the last one to leave stops both. ``close()`` (the vault's `lock()`)
/// finishes every subscriber's stream before the pool closes, and a check that starts
/// after it does nothing, so the feed never touches a closed pool.
actor ChangeFeed {
    private struct Subscriber {
        let tables: Set<VaultTable>?
        let continuation: AsyncStream<VaultChange>.Continuation
    }

    /// The default interval at which another process's commits are polled for.
    static let defaultPollingInterval: Duration = .seconds(1)

    private let pool: VaultDatabase
    /// The tables of this vault's commits not yet looked at by the pump.
    private let committedTables = PendingTables()
    private let vaultID: UUID
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    private var lastSequence: Int64 = 0
    private var pollingInterval: Duration? = ChangeFeed.defaultPollingInterval
    private var pump: Task<Void, Never>?
    private var poller: Task<Void, Never>?
    private var signalToken: UInt64?
    private var isClosed = false
    private var running: Task<Void, Never>?

    init(pool: VaultDatabase, vaultID: UUID) {
        self.pool = pool
        self.vaultID = vaultID
    }

    /// Subscribes to the commits touching `tables` (`nil`: any logged table) made
    /// after this returns.
    ///
    /// - Parameter coalescing: Keep only the newest undelivered notification (value
    ///   observations re-read anyway) instead of every one.
    /// - Throws: `locked` when the vault is locked.
    func subscribe(_ tables: Set<VaultTable>?, coalescing: Bool) async throws -> AsyncStream<VaultChange> {
        guard !isClosed else { throw Vault.lockedError }
        if subscribers.isEmpty {
            // The baseline: later entries are news.
            let latest = try await pool.read { db in try ChangeLogReader.latestSequence(db) }
            guard !isClosed else { throw Vault.lockedError }
            if subscribers.isEmpty { lastSequence = latest }
        }
        let (stream, continuation) = AsyncStream<VaultChange>.makeStream(
            bufferingPolicy: coalescing ? .bufferingNewest(1) : .unbounded)
        nextID += 1
        let id = nextID
        subscribers[id] = Subscriber(tables: tables, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        startIfNeeded()
        return stream
    }

    /// Sets how often another process's commits are polled for; `nil` stops polling
    /// (``check()`` still works).
    func setPollingInterval(_ interval: Duration?) {
        pollingInterval = interval
        poller?.cancel()
        poller = nil
        startIfNeeded()
    }

    /// Reads the log for changes not yet reported and notifies their subscribers.
    /// When it returns, every change committed before it was called has been delivered
    /// to the subscribers' streams.
    func check() async {
        // One check at a time, in order: each starts from the sequence the previous
        // one reached, so no range of the log is skipped or reported twice.
        let previous = running
        let task = Task {
            await previous?.value
            await self.performCheck()
        }
        running = task
        await task.value
    }

    private func performCheck() async {
        guard !isClosed, !subscribers.isEmpty else { return }
        let since = lastSequence
        let found: (latest: Int64, tables: Set<VaultTable>, isComplete: Bool)
        do {
            found = try await pool.read { db in try ChangeLogReader.changedTables(after: since, db) }
        } catch {
            // Locked (the pool closed first) or a transient storage error: the next
            // commit or poll checks again from the same sequence.
            return
        }
        // A first subscriber may have set a new baseline while this read ran: it wins.
        guard !isClosed, lastSequence == since, found.latest != since else { return }
        lastSequence = found.latest
        let cursor = ChangeCursor(vaultID: vaultID, sequence: found.latest)
        for subscriber in subscribers.values {
            let tables: Set<VaultTable>
            if !found.isComplete {
                tables = subscriber.tables ?? found.tables
            } else if let watched = subscriber.tables {
                tables = watched.intersection(found.tables)
            } else {
                tables = found.tables
            }
            if !tables.isEmpty || (!found.isComplete && subscriber.tables == nil) {
                subscriber.continuation.yield(VaultChange(tables: tables, through: cursor))
            }
        }
    }

    /// Ends every subscription and stops for good (the vault is locking).
    func close() {
        isClosed = true
        stop()
        let current = subscribers.values
        subscribers.removeAll()
        for subscriber in current { subscriber.continuation.finish() }
    }

    /// How many subscriptions are live (for tests).
    var subscriberCount: Int { subscribers.count }

    /// How many polls have started, and the first few that notified someone (for tests:
    /// "seen within one polling interval" is checked in polls, not in seconds).
    private(set) var pollCount = 0
    private(set) var notifyingPolls: [Int] = []

    private func poll() async {
        pollCount += 1
        let poll = pollCount, before = lastSequence
        await check()
        if lastSequence != before && notifyingPolls.count < 16 { notifyingPolls.append(poll) }
    }

    // MARK: - Pump and timer

    /// Whether a subscriber watches one of `tables`.
    private func watchesAny(of tables: Set<VaultTable>) -> Bool {
        subscribers.values.contains { subscriber in
            subscriber.tables.map { !$0.isDisjoint(with: tables) } ?? true
        }
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers.removeValue(forKey: id)
        if subscribers.isEmpty { stop() }
    }

    private func startIfNeeded() {
        guard !isClosed, !subscribers.isEmpty else { return }
        if pump == nil {
            let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let pending = committedTables
            signalToken = pool.commits.add { tables in
                pending.add(tables)
                wake.yield()
            }
            pump = Task { [weak self] in
                for await _ in wakeups {
                    guard let self else { return }
                    let tables = pending.take()
                    // A commit that touched no watched table needs no read of the log:
                    // its entries are reported (to nobody) with the next relevant one.
                    if await self.watchesAny(of: tables) { await self.check() }
                }
            }
        }
        if poller == nil, let interval = pollingInterval {
            poller = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    guard let self else { return }
                    await self.poll()
                }
            }
        }
    }

    private func stop() {
        if let signalToken { pool.commits.remove(signalToken) }
        signalToken = nil
        pump?.cancel()
        pump = nil
        poller?.cancel()
        poller = nil
    }
}

/// Tables committed by this vault's writer, gathered on the committing thread until the
/// feed's pump takes them.
private final class PendingTables: @unchecked Sendable {
    // Safety of @unchecked Sendable: `tables` is read and written only under `lock`.
    private let lock = NSLock()
    private var tables: Set<VaultTable> = []

    func add(_ more: Set<VaultTable>) { lock.withLock { tables.formUnion(more) } }

    func take() -> Set<VaultTable> {
        lock.withLock {
            defer { tables = [] }
            return tables
        }
    }
}
