import Foundation
import MedVault
import MedVaultCore

extension SyncEngine {
    /// Syncs automatically — shortly after each local commit and at least every
    /// ``SyncSchedule/interval`` — until the task iterating the returned sequence is
    /// cancelled, the vault is locked, or a pass fails for good.
    ///
    /// ```swift
    /// let engine = SyncEngine(vault: vault, transport: transport)
    /// let syncing = Task {
    ///     for await pass in engine.automaticSync() {
    ///         if case .stopped(let error) = pass { showSyncProblem(error) }
    ///     }
    /// }
    /// // …later, or when the app goes to the background:
    /// syncing.cancel()
    /// ```
    ///
    /// The first pass starts at once. Each pass is one ``sync()``; its outcome is yielded
    /// (the newest 16 are kept for a slow reader). The loop's passes never overlap; a
    /// manual ``sync()`` meanwhile interleaves with the running pass at its suspension
    /// points (the engine is a reentrant actor), which is safe as two engines on one vault
    /// are: a pulled group applies only if the pull cursor has not moved. A pass
    /// that applies other devices' changes commits too, so one more pass follows it; that
    /// one finds nothing to push or pull.
    ///
    /// - Parameter schedule: When passes run and how failures back off.
    /// - Returns: One ``SyncPass`` per pass. It ends after a ``SyncPass/stopped(_:)``, when
    ///   the vault is locked, or when iterating stops; an invalid `schedule` yields a single
    ///   ``SyncPass/stopped(_:)`` (`invalidArgument`).
    public nonisolated func automaticSync(_ schedule: SyncSchedule = SyncSchedule()) -> AsyncStream<SyncPass> {
        let (passes, output) = AsyncStream<SyncPass>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let loop = Task { await self.runAutomaticSync(schedule, output) }
        output.onTermination = { _ in loop.cancel() }
        return passes
    }

    /// What wakes the loop.
    /// What wakes the loop; a timer's wake carries its generation, so the wake of a timer
    /// replaced or already accounted for is recognised as stale.
    private enum Wake: Sendable, Equatable {
        case commit
        case timer(UInt64)
        /// ``syncNow()`` was called: a pass at once, backoff or not.
        case now
    }

    /// Asks the running ``automaticSync(_:)`` for a pass at once — "the network is back"
    /// — even while it backs off after failures. Debounced: calls made before the pass
    /// starts (or while one runs) give one pass. Without automatic sync running, the
    /// request waits for it to start (whose first pass is immediate anyway); call
    /// ``sync()`` for a pass of your own.
    public nonisolated func syncNow() {
        nowSignal.request()
    }

    private nonisolated func runAutomaticSync(_ schedule: SyncSchedule, _ output: AsyncStream<SyncPass>.Continuation) async {
        defer { output.finish() }
        do {
            try schedule.validate()
        } catch {
            output.yield(.stopped(error as? MedVaultError ?? MedVaultError(.invalidArgument, reason: "an invalid sync schedule")))
            return
        }
        let (wakes, wake) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let attached = nowSignal.attach { wake.yield(.now) }
        // Local commits; the stream ends when the vault locks, and the loop with it.
        let watcher = Task { [vault] in
            if let changes = try? await vault.changeNotifications() {
                for await _ in changes { wake.yield(.commit) }
            }
            wake.finish()
        }
        let timer = TimerSlot()
        defer {
            nowSignal.detach(attached)
            // No retry is coming any more: a status promising one is withdrawn.
            Task { await self.automaticSyncEnded() }
            watcher.cancel()
            timer.cancel()
            wake.finish()
        }
        var wakeups = wakes.makeAsyncIterator()
        var failures = 0
        var afterCommit = false
        repeat {
            if afterCommit {
                try? await Task.sleep(for: schedule.afterCommit)
            }
            if Task.isCancelled { return }
            let wait: Duration
            // A request made before this pass is served by it.
            _ = nowSignal.take()
            do {
                output.yield(.synced(try await sync()))
                failures = 0
                nowSignal.hold(until: .distantPast)
                wait = schedule.interval
            } catch {
                let failure = error as? MedVaultError ?? MedVaultError(.storage, reason: "the sync pass failed")
                if Task.isCancelled || failure.code == .cancelled { return }
                if SyncPass.isFinal(failure) {
                    output.yield(.stopped(failure))
                    return
                }
                failures += 1
                wait = schedule.backoff(afterFailures: failures, retryAfter: failure.retryAfter)
                // A server's Retry-After holds even a request of syncNow().
                nowSignal.hold(until: failure.retryAfter == nil ? .distantPast : Date().addingTimeInterval(
                    Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18))
                await noteRetry(after: failure, in: wait)
                output.yield(.failed(failure, retryIn: wait))
            }
            timer.start(after: wait) { generation in wake.yield(.timer(generation)) }
            // While backing off, commits wait for the timer. The wake stream keeps only
            // the newest wake, so a commit signalled just after the timer fired replaces
            // its wake: the timer's own flag says it fired, or the loop would wait for a
            // timer that will never come again. A timer wake from an earlier timer, or
            // one already accounted for through the flag, is stale: skipped, or it would
            // cut the next wait short.
            var woken: Wake?
            repeat {
                guard let wake = await wakeups.next() else { return }
                switch wake {
                case .timer(let generation):
                    if timer.takeFiring(generation) { woken = wake }
                case .commit:
                    if failures == 0 || timer.takeFiring(nil) { woken = wake }
                case .now:
                    break
                }
                // A request of syncNow() wakes the loop whatever the wake that carried it
                // (the stream keeps only the newest).
                if nowSignal.take() { woken = .now }
            } while woken == nil
            afterCommit = woken == .commit && failures == 0
        } while !Task.isCancelled
    }
}

/// ``SyncEngine/syncNow()``'s request, and how to wake the running automatic sync.
final class NowSignal: @unchecked Sendable {
    // Safety of @unchecked Sendable: `requested`, `wake`, `owner` and `notBefore` are
    // read and written only under `lock`; `wake` is called outside it.
    private let lock = NSLock()
    private var requested = false
    private var wake: (@Sendable () -> Void)?
    private var owner: UInt64 = 0
    /// No request is served before this instant (the server's `Retry-After`).
    private var notBefore = Date.distantPast

    /// Sets the request and wakes the running loop, if any.
    func request() {
        let wake = lock.withLock {
            requested = true
            return self.wake
        }
        wake?()
    }

    /// Takes the request, once: whether one was pending (and may be served now).
    func take(now: Date = Date()) -> Bool {
        lock.withLock {
            defer { requested = false }
            return requested && now >= notBefore
        }
    }

    /// Requests are not served before `date` (a rate limit's `Retry-After`).
    func hold(until date: Date) {
        lock.withLock { notBefore = date }
    }

    /// Makes `wake` the running loop's; returns its token for ``detach(_:)``.
    func attach(_ wake: @escaping @Sendable () -> Void) -> UInt64 {
        lock.withLock {
            owner &+= 1
            self.wake = wake
            notBefore = .distantPast
            return owner
        }
    }

    /// Whether an automatic-sync loop is running.
    var hasLoop: Bool { lock.withLock { wake != nil } }

    /// Removes the wake of the loop holding `token`, unless a newer loop replaced it.
    func detach(_ token: UInt64) {
        lock.withLock {
            if owner == token { wake = nil }
        }
    }
}

/// The loop's one pending timer: starting a new one cancels the previous.
final class TimerSlot: @unchecked Sendable {
    // Safety of @unchecked Sendable: `task`, `generation` and `fired` are read and
    // written only under `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var generation: UInt64 = 0
    private var fired = false

    /// Whether the timer started last has fired and its firing was not taken yet.
    var hasFired: Bool { lock.withLock { fired } }

    /// Takes the firing of the current timer, once: `true` when the current timer fired
    /// (and `generation`, when given, is its generation), after which any wake of that
    /// timer is stale. `false` for an earlier timer's wake or a timer not yet fired.
    func takeFiring(_ generation: UInt64?) -> Bool {
        lock.withLock {
            guard fired, generation == nil || generation == self.generation else { return false }
            fired = false
            self.generation &+= 1
            return true
        }
    }

    /// Starts a timer firing `fire` with its generation after `wait`, replacing the
    /// previous one (whose wakes become stale).
    func start(after wait: Duration, _ fire: @escaping @Sendable (UInt64) -> Void) {
        let mine = lock.withLock {
            generation &+= 1
            fired = false
            return generation
        }
        let new = Task {
            try? await Task.sleep(for: wait)
            guard !Task.isCancelled else { return }
            let current = self.lock.withLock {
                guard self.generation == mine else { return false }
                self.fired = true
                return true
            }
            if current { fire(mine) }
        }
        lock.withLock {
            task?.cancel()
            task = new
        }
    }

    func cancel() {
        lock.withLock {
            task?.cancel()
            task = nil
        }
    }
}
