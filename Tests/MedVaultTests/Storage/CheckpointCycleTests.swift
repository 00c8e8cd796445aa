import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// WAL cycles under what one pool alone never meets: another pool committing to the same
/// file (as another process would), another process holding the checkpoint lock, and a
/// reader pinning the log.
@Suite("Database pool: the WAL restarts beside other writers, checkpointers and long readers")
struct CheckpointCycleTests {
    /// A note of 80 KB: about 20 WAL frames per commit, so a test reaches the 1,000-frame
    /// threshold in tens of commits.
    private static let body = String(repeating: "c", count: 80_000)

    /// Frames in the WAL file (its high-water mark: a restart rewrites it from its start).
    private static func walFrames(_ url: URL, _ pool: VaultDatabase) async throws -> Int {
        let pageSize = try await pool.read { db in try db.fetchOne("PRAGMA page_size") { $0.int64(at: 0) } } ?? 4_096
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")
        let size = (attributes?[.size] as? Int) ?? 0
        return max(0, size - 32) / (Int(pageSize) + 24)
    }

    /// Commits notes numbered from `first` on `pool` until `done()` or the deadline, and
    /// returns the numbers it committed.
    private static func commitUntil(_ pool: VaultDatabase, from first: Int64, seconds: Int = 90,
                                    _ done: @Sendable () -> Bool) async throws -> [Int64] {
        var numbers: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done() && ContinuousClock.now < deadline {
            let n = first + Int64(numbers.count)
            try await StorageFixtures.insertNote(pool, n, body)
            numbers.append(n)
        }
        return numbers
    }

    @Test("While another process holds the checkpoint lock, a round that could not run waits for 1,000 more frames, not the next commit; the WAL restarts once it lets go")
    func anotherProcessHoldsTheCheckpointLock() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("k.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            try await StorageFixtures.insertNote(pool, 0, "first")
            let holder = try await WALLockHolder(url, lockIndex: WALLockHolder.checkpointLock)
            for n in Int64(1)...200 {
                try await StorageFixtures.insertNote(pool, n, Self.body)
            }
            let frames = try await Self.walFrames(url, pool)
            #expect(frames >= 3_000)
            // Every round found the lock taken. A round is scheduled at 1,000 frames and
            // then only once the log grew by another 1,000 (rounds still in flight count
            // later, never more): not one per commit (about 150 before).
            #expect(pool.backgroundCheckpointCount <= 1 + frames / 1_000)
            #expect(pool.walRestartCount == 0)
            holder.release()
            // The next round copies everything, a commit catches up, and the log restarts.
            let after = try await Self.commitUntil(pool, from: 1_000) { pool.walRestartCount > 0 }
            #expect(pool.walRestartCount >= 1)
            await pool.close()
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened) == Array(0...200) + after)
            await reopened.close()
        }
    }

    @Test("Two pools on one file committing steadily, as two processes: the WAL restarts for both, rounds stay few, every row survives a reopen")
    func twoPoolsCommittingSteadily() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("two.db")
            let key = StorageFixtures.randomKey()
            let first = try await StorageFixtures.openNotes(url, key: key)
            let second = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            let bothRestarted: @Sendable () -> Bool = {
                first.walRestartCount >= 2 && second.walRestartCount >= 2
            }
            async let firstNumbers = Self.commitUntil(first, from: 1, bothRestarted)
            async let secondNumbers = Self.commitUntil(second, from: 1_000_000, bothRestarted)
            let committed = try await firstNumbers + secondNumbers
            #expect(first.walRestartCount >= 2)
            #expect(second.walRestartCount >= 2)
            // A round runs per 1,000 frames of a pool's, or again at once while rounds
            // progress and more than 256 frames are left; a commit writes about 20.
            // Before: the pool whose round found the other's running retried at every commit.
            let rounds = first.backgroundCheckpointCount + second.backgroundCheckpointCount
            #expect(rounds <= 4 + committed.count / 4)
            // Rounds ran while both kept committing: the log never reached the writer's
            // inline backstop (16,000 frames). Before, the rounds' tasks waited for a
            // cooperative thread, which the two committing loops (short writes run on the
            // caller's thread and never suspend) kept busy on a two-core machine.
            #expect(rounds >= 2)
            #expect(try await Self.walFrames(url, first) < 16_000)
            await first.close()
            await second.close()
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened) == committed.sorted())
            await reopened.close()
        }
    }

    @Test("A long reader pinning the WAL during steady commits: rounds per 1,000 frames, not per commit; once it ends, the WAL restarts")
    func aLongReaderPinsTheLog() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("pin.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            // The reader is another pool's (a read on this pool's idle writer would hold it).
            let other = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            for n in Int64(1)...5 {
                try await StorageFixtures.insertNote(pool, n, Self.body)
            }
            let reading = Gate()
            let release = Gate()
            let reader = Task {
                try await other.read(duration: .long) { db in
                    let count = try db.fetchOne("SELECT count(*) FROM note") { $0.int64(at: 0) }
                    reading.open()
                    release.waitBlocking()
                    return count
                }
            }
            await reading.waitUntilOpen()
            for n in Int64(6)...250 {
                try await StorageFixtures.insertNote(pool, n, Self.body)
            }
            let frames = try await Self.walFrames(url, pool)
            #expect(frames >= 4_000)
            #expect(pool.walRestartCount == 0)
            // The first round copies up to the reader's snapshot, a second finds no more
            // to copy, then one per 1,000 frames: by construction at most 2 + frames/1,000.
            #expect(pool.backgroundCheckpointCount <= 2 + frames / 1_000)
            release.open()
            #expect(try await reader.value == 5)
            let after = try await Self.commitUntil(pool, from: 1_000) { pool.walRestartCount > 0 }
            #expect(pool.walRestartCount >= 1)
            await other.close()
            await pool.close()
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened) == Array(1...250) + after)
            await reopened.close()
        }
    }
}
