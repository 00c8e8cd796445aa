import CSQLCipher
import Foundation

/// Keeps WAL checkpoints off the committing caller's path.
///
/// SQLite's default checkpoints the WAL into the database file inside the commit that
/// pushes the WAL past 1,000 pages: that caller waits for about a thousand page writes
/// and an `fsync` of the database file, every few hundred small commits (a latency
/// tail ~20× the median on a durable update). Instead, the writer's WAL hook asks for
/// a `PASSIVE` checkpoint on the pool's own checkpoint connection and thread, which
/// never blocks the writer or readers; the writer restarts the WAL from its start at a
/// later transaction once everything was copied. If the checkpoints cannot keep up (a
/// long read pins old pages), the writer still checkpoints inline at
/// ``inlineThreshold`` pages, so the WAL stays bounded.
///
/// Durability is unchanged: a commit is durable once the WAL is synced
/// (`synchronous = FULL`); the checkpoint syncs the WAL before copying and the database
/// file after.
final class CheckpointScheduler: @unchecked Sendable {
    // Safety of @unchecked Sendable: `isScheduled` and `runner` are read and written
    // only while holding `lock`; the thresholds are immutable.
    private let lock = NSLock()
    private var isScheduled = false
    private var runner: (@Sendable () async -> Void)?

    /// WAL pages after which a background checkpoint is requested (SQLite's default
    /// auto-checkpoint size).
    let backgroundThreshold: Int32
    /// WAL pages after which the writer checkpoints inline anyway.
    let inlineThreshold: Int32

    init(backgroundThreshold: Int32 = 1_000, inlineThreshold: Int32 = 16_000) {
        self.backgroundThreshold = backgroundThreshold
        self.inlineThreshold = inlineThreshold
    }

    /// Sets what runs a background checkpoint; until then, and after ``stop()``,
    /// nothing is scheduled (the writer's inline backstop still applies).
    func start(_ runner: @escaping @Sendable () async -> Void) {
        lock.withLock { self.runner = runner }
    }

    /// Schedules nothing more.
    func stop() {
        lock.withLock { runner = nil }
    }

    /// Installs the hook on the writer's connection. The scheduler must outlive the
    /// connection (the pool owns both and closes the connection first).
    func install(on handle: OpaquePointer) {
        sqlite3_wal_hook(handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the writer's connection after each commit, with the WAL's size in pages.
    fileprivate func walGrew(to pages: Int32, handle: OpaquePointer?) {
        if pages >= inlineThreshold {
            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= backgroundThreshold else { return }
        let run: (@Sendable () async -> Void)? = lock.withLock {
            guard !isScheduled, let runner else { return nil }
            isScheduled = true
            return runner
        }
        guard let run else { return }
        Task.detached { [self] in
            await run()
            lock.withLock { isScheduled = false }
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
