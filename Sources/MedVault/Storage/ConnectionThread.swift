import Foundation

/// A serial executor that runs its jobs on one dedicated thread.
///
/// SQLite calls block: a commit waits for `fsync`, a busy database waits for its
/// lock, an export or an integrity check reads the whole file. Long work on Swift's
/// cooperative thread pool (two threads on a two-core machine) would stall every
/// other task of the app, so each connection of a ``VaultDatabase`` has a thread of
/// its own for long jobs and for short ones that find the connection busy (see
/// ``VaultDatabase/ExpectedDuration``).
final class ConnectionThread: SerialExecutor, @unchecked Sendable {
    // Safety of @unchecked Sendable: `jobs`, `isStopping`, `isStarted` and `isLaunched`
    // are read and written only while holding `condition`'s lock; `name` is immutable.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isStopping = false
    private var isStarted = false
    private var isLaunched = false
    private let name: String

    /// Prepares the executor; its thread starts with the first job. A connection whose
    /// transactions all run on their callers' threads (short ones on an idle
    /// connection) never pays for a thread.
    ///
    /// - Parameter name: The thread's name, at most 15 bytes (Linux's limit).
    init(name: String) {
        self.name = name
    }

    /// Starts the thread. Call it holding `condition`'s lock.
    private func launchIfNeeded() {
        guard !isLaunched else { return }
        isLaunched = true
        isStarted = false
        let thread = Thread { [self] in
            // Named from inside, once `start()` has returned: on Linux a name set
            // before `start()` never reaches the system thread (which tools such as
            // top -H, perf and debuggers show), and one set while `start()` is still
            // running is lost too.
            condition.lock()
            while !isStarted { condition.wait() }
            condition.unlock()
            Thread.current.name = name
            self.runLoop()
        }
        // As a main thread's: exports, rekeys and integrity checks recurse deeply in
        // SQLite and OpenSSL. Short transactions, which run on the caller's thread,
        // are MedVault's own fixed statements and stay shallow.
        thread.stackSize = 8 << 20
        thread.start()
        // The new thread waits for this lock, held by the caller, before it reads it.
        isStarted = true
        condition.broadcast()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        launchIfNeeded()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish the jobs already queued, then exit. A job enqueued after
    /// that (a task that prefers this executor, resuming after the pool closed) starts a
    /// thread again, which runs it and exits: no job is ever left unrun, and two threads
    /// never run this executor's jobs at once.
    func stop() {
        condition.lock()
        isStopping = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        var index = 0
        var batch: [UnownedJob] = []
        while true {
            if index == batch.count {
                condition.lock()
                while jobs.isEmpty && !isStopping { condition.wait() }
                if jobs.isEmpty {
                    // Stopping with nothing left: a later job launches a new thread.
                    isLaunched = false
                    condition.unlock()
                    return
                }
                swap(&batch, &jobs)
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                index = 0
            }
            let job = batch[index]
            index += 1
            job.runSynchronously(on: asUnownedSerialExecutor())
            if index == batch.count { batch.removeAll(keepingCapacity: true); index = 0 }
        }
    }
}

/// A task that prefers this executor (``ConnectionActor/launch(_:)``) runs every
/// nonisolated step on the thread too, never waiting for a cooperative thread.
@available(macOS 15.0, iOS 18.0, *)
extension ConnectionThread: TaskExecutor {}
