import CSQLCipher
import Foundation

/// Keeps WAL checkpoints off the committing caller's path, and the WAL from growing.
///
/// SQLite's default checkpoints the WAL into the database file inside the commit that
/// pushes the WAL past 1,000 pages: that caller waits for about a thousand page writes
/// and an `fsync` of the database file, every few hundred small commits (a latency
/// tail ~20× the median on a durable update). Instead, the writer's WAL hook asks for
/// a `PASSIVE` checkpoint on the pool's own checkpoint connection and thread, which
/// never blocks the writer or readers.
///
/// SQLite restarts the WAL from its start only in a write transaction that *began*
/// when every frame was already in the database file. Commits that keep arriving while
/// the background checkpoint runs add frames it has not copied, so on its own the WAL
/// would never restart: it would grow, and every commit would schedule one more
/// checkpoint (two more `fsync`s competing with the commit's own). So once a background
/// checkpoint has finished, the next commit's hook copies the few frames committed
/// meanwhile itself (at most ``catchUpLimit`` pages, else another background round
/// runs): the writer's next transaction then restarts the WAL. One commit per cycle
/// pays that short copy and one `fsync` of the database file.
///
/// If the checkpoints cannot keep up (a long read pins old pages), the next attempt
/// waits until the WAL has grown by another ``backgroundThreshold`` pages, and the
/// writer still checkpoints inline at ``inlineThreshold`` pages, so the WAL stays
/// bounded.
///
/// Durability is unchanged: a commit is durable once the WAL is synced
/// (`synchronous = FULL`); the checkpoint syncs the WAL before copying and the database
/// file after.
final class CheckpointScheduler: @unchecked Sendable {
    // Safety of @unchecked Sendable: every `var` is read and written only while
    // holding `lock`; the thresholds are immutable.
    private let lock = NSLock()
    private var phase = Phase.idle
    private var nextAttempt: Int32
    /// Frames the last background checkpoint of this WAL cycle copied.
    private var lastBackfilled: Int32 = 0
    /// WAL frames after the writer's last commit.
    private var lastCommitPages: Int32 = 0
    /// How many times the WAL was seen to restart: a checkpoint that finishes in a
    /// later cycle than it started in copied frames of a log that no longer exists.
    private var cycle = 0
    private var runner: (@Sendable () async -> Int32?)?
    private var launch: Launch = { work in Task.detached { await work() } }

    private enum Phase {
        /// No checkpoint in flight: one is scheduled when the WAL reaches `nextAttempt`.
        case idle
        /// A background checkpoint is scheduled or running, started in WAL cycle `cycle`.
        case running(cycle: Int)
        /// A background checkpoint copied this many frames (`progressed` when more than
        /// the round before it); the writer copies the rest.
        case catchingUp(backfilled: Int32, progressed: Bool)
    }

    /// WAL pages after which a background checkpoint is requested (SQLite's default
    /// auto-checkpoint size).
    let backgroundThreshold: Int32
    /// WAL pages after which the writer checkpoints inline anyway.
    let inlineThreshold: Int32
    /// The most frames the writer copies itself after a background checkpoint.
    let catchUpLimit: Int32

    init(backgroundThreshold: Int32 = 1_000, inlineThreshold: Int32 = 16_000, catchUpLimit: Int32 = 256) {
        self.backgroundThreshold = backgroundThreshold
        self.inlineThreshold = inlineThreshold
        self.catchUpLimit = catchUpLimit
        self.nextAttempt = backgroundThreshold
    }

    /// Sets what runs a background checkpoint (returning the WAL frames it copied, or
    /// `nil` when it could not run); until then, and after ``stop()``, nothing is
    /// scheduled (the writer's inline backstop still applies).
    ///
    /// `launch` starts the round as a task: the pool's starts it on the checkpoint
    /// connection's own thread (``ConnectionActor/launch(_:)``), so app tasks that keep
    /// the cooperative pool busy cannot delay it until the WAL reaches the inline backstop.
    func start(launch: @escaping Launch = { work in Task.detached { await work() } },
               _ runner: @escaping @Sendable () async -> Int32?) {
        lock.withLock {
            self.runner = runner
            self.launch = launch
        }
    }

    /// Starts a background round's task.
    typealias Launch = @Sendable (@escaping @Sendable () async -> Void) -> Void

    /// Schedules nothing more.
    func stop() {
        lock.withLock { runner = nil }
    }

    /// Installs the hook on the writer's connection. The scheduler must outlive the
    /// connection (the pool owns both and closes the connection first).
    func install(on handle: OpaquePointer) {
        medvault_sqlite3_wal_hook(handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What the writer's hook does after a commit that left the WAL at `pages` frames.
    enum Action: Equatable {
        case nothing
        /// Start a background checkpoint.
        case schedule
        /// Checkpoint on the writer's connection now.
        case checkpointInline
    }

    /// Decides what a commit that left `pages` frames in the WAL triggers, and records it.
    func action(afterCommitAt pages: Int32) -> Action {
        lock.withLock {
            // The frame count only goes down when the log restarts from its start.
            if pages < lastCommitPages { cycle += 1 }
            lastCommitPages = pages
            if pages < backgroundThreshold {
                // The WAL restarted (or is still small).
                nextAttempt = backgroundThreshold
                lastBackfilled = 0
                if case .catchingUp = phase { phase = .idle }
                return .nothing
            }
            if pages >= inlineThreshold {
                return .checkpointInline
            }
            switch phase {
            case .running:
                return .nothing
            case .catchingUp(let backfilled, let progressed):
                phase = .idle
                // Unless the WAL restarts, the next attempt waits for another
                // threshold's worth of frames...
                nextAttempt = pages + backgroundThreshold
                if pages - backfilled <= catchUpLimit { return .checkpointInline }
                // ...but commits outpacing the checkpoint (a bulk load) get another
                // round at once, as long as the rounds make progress: a reader pinning
                // the WAL would make every round copy nothing more.
                return progressed ? scheduleIfPossible() : .nothing
            case .idle:
                return pages >= nextAttempt ? scheduleIfPossible() : .nothing
            }
        }
    }

    /// Records that a background checkpoint finished, having copied `backfilled` frames.
    func backgroundCheckpointFinished(backfilled: Int32?) {
        lock.withLock {
            guard case .running(let started) = phase else { return }
            if let backfilled, started == cycle {
                phase = .catchingUp(backfilled: backfilled, progressed: backfilled > lastBackfilled)
                lastBackfilled = max(lastBackfilled, backfilled)
            } else {
                phase = .idle
                // A round that could not run (another connection or process holds the
                // checkpoint lock: it is checkpointing this log now) is not retried at
                // the next commit, which would start one round per commit while it
                // lasts, but once the log has grown by another threshold's worth.
                if backfilled == nil { nextAttempt = lastCommitPages + backgroundThreshold }
            }
        }
    }

    /// How many times the writer's commits found the WAL restarted from its start (for tests).
    var restartCount: Int { lock.withLock { cycle } }

    /// Called while holding `lock`.
    private func scheduleIfPossible() -> Action {
        guard runner != nil else { return .nothing }
        phase = .running(cycle: cycle)
        return .schedule
    }

    /// Called by the writer's connection after each commit, with the WAL's size in pages.
    fileprivate func walGrew(to pages: Int32, handle: OpaquePointer?) {
        switch action(afterCommitAt: pages) {
        case .nothing:
            return
        case .checkpointInline:
            medvault_sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        case .schedule:
            let (run, launch) = lock.withLock { (runner, self.launch) }
            guard let run else {
                backgroundCheckpointFinished(backfilled: nil)
                return
            }
            launch { [self] in
                backgroundCheckpointFinished(backfilled: await run())
            }
        }
    }
}

/// The writer's `sqlite3_wal_hook`: runs on the committing thread, after the commit.
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ handle: OpaquePointer?, _ database: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<CheckpointScheduler>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages, handle: handle)
    return SQLITE_OK
}
