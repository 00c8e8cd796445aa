@testable import MedVault
import Testing

/// The decisions of the writer's WAL hook (`CheckpointScheduler`), commit by commit.
@Suite("Checkpoint scheduler: background rounds, the writer's catch-up and the WAL restart")
struct CheckpointSchedulerTests {
    private static func scheduler() -> CheckpointScheduler {
        let scheduler = CheckpointScheduler(backgroundThreshold: 100, inlineThreshold: 1_000, catchUpLimit: 20)
        scheduler.start { nil }
        return scheduler
    }

    @Test("After a background round, the next commit copies the few frames left itself, so the log can restart")
    func catchUpAfterABackgroundRound() {
        let scheduler = Self.scheduler()
        #expect(scheduler.action(afterCommitAt: 50) == .nothing)
        #expect(scheduler.action(afterCommitAt: 100) == .schedule)
        // Commits while the round runs start nothing more.
        #expect(scheduler.action(afterCommitAt: 103) == .nothing)
        #expect(scheduler.action(afterCommitAt: 106) == .nothing)
        scheduler.backgroundCheckpointFinished(backfilled: 103)
        #expect(scheduler.action(afterCommitAt: 109) == .checkpointInline)
        #expect(scheduler.restartCount == 0)
        // The next transaction restarted the log: a new cycle begins.
        #expect(scheduler.action(afterCommitAt: 3) == .nothing)
        #expect(scheduler.restartCount == 1)
        #expect(scheduler.action(afterCommitAt: 99) == .nothing)
        #expect(scheduler.action(afterCommitAt: 102) == .schedule)
    }

    @Test("Commits outpacing the checkpoint get another round at once while rounds make progress, and wait once they stop")
    func roundsWhileProgressing() {
        let scheduler = Self.scheduler()
        #expect(scheduler.action(afterCommitAt: 100) == .schedule)
        scheduler.backgroundCheckpointFinished(backfilled: 100)
        // 200 frames left, more than the writer copies itself: another round.
        #expect(scheduler.action(afterCommitAt: 300) == .schedule)
        // A reader pins the log: the round copies nothing more.
        scheduler.backgroundCheckpointFinished(backfilled: 100)
        #expect(scheduler.action(afterCommitAt: 310) == .nothing)
        #expect(scheduler.action(afterCommitAt: 409) == .nothing)
        // The next attempt comes a threshold's worth of frames later.
        #expect(scheduler.action(afterCommitAt: 410) == .schedule)
        scheduler.backgroundCheckpointFinished(backfilled: 405)
        #expect(scheduler.action(afterCommitAt: 420) == .checkpointInline)
    }

    @Test("The writer checkpoints inline at the backstop whatever is in flight")
    func inlineBackstop() {
        let scheduler = Self.scheduler()
        #expect(scheduler.action(afterCommitAt: 100) == .schedule)
        #expect(scheduler.action(afterCommitAt: 999) == .nothing)
        #expect(scheduler.action(afterCommitAt: 1_000) == .checkpointInline)
        #expect(scheduler.action(afterCommitAt: 1_200) == .checkpointInline)
    }

    @Test("A round that finishes after the log restarted counts for nothing")
    func roundFromAnEarlierCycle() {
        let scheduler = Self.scheduler()
        #expect(scheduler.action(afterCommitAt: 100) == .schedule)
        // Everything was copied before the next transaction began: it restarted the log.
        #expect(scheduler.action(afterCommitAt: 2) == .nothing)
        scheduler.backgroundCheckpointFinished(backfilled: 100)
        // 95 frames of the new log are not in the database file: no catch-up from the
        // old round's count, a new round instead.
        #expect(scheduler.action(afterCommitAt: 105) == .schedule)
    }

    @Test("A round that could not run (another process is checkpointing) is retried a threshold later, not at every commit")
    func roundThatCouldNotRun() {
        let scheduler = Self.scheduler()
        #expect(scheduler.action(afterCommitAt: 100) == .schedule)
        #expect(scheduler.action(afterCommitAt: 104) == .nothing)
        scheduler.backgroundCheckpointFinished(backfilled: nil)
        #expect(scheduler.action(afterCommitAt: 105) == .nothing)
        #expect(scheduler.action(afterCommitAt: 203) == .nothing)
        #expect(scheduler.action(afterCommitAt: 204) == .schedule)
        // That round ran: the catch-up works as after any round.
        scheduler.backgroundCheckpointFinished(backfilled: 204)
        #expect(scheduler.action(afterCommitAt: 210) == .checkpointInline)
    }

    @Test("Once stopped, nothing is scheduled; the backstop remains")
    func stopped() {
        let scheduler = Self.scheduler()
        scheduler.stop()
        #expect(scheduler.action(afterCommitAt: 500) == .nothing)
        #expect(scheduler.action(afterCommitAt: 1_000) == .checkpointInline)
    }
}
