import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// WAL checkpoints run on the pool's checkpoint connection, never inside a caller's commit.
@Suite("Database pool: checkpoints off the commit path")
struct BackgroundCheckpointTests {
    private static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    @Test("A commit that grows the WAL past 1,000 pages returns without checkpointing; the checkpoint connection copies it")
    func theCommitDoesNotCheckpoint() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("w.db")
            let pool = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey())
            let sizeBefore = Self.size(url)
            // Hold the checkpoint connection so a background checkpoint cannot start yet.
            let holding = Gate()
            let release = Gate()
            let holder = Task {
                try await pool.checkpointer.withConnection(.long) { _ in
                    holding.open()
                    release.waitBlocking()
                }
            }
            await holding.waitUntilOpen()
            // About 1,300 pages of notes in one commit.
            let body = String(repeating: "x", count: 3_000)
            try await pool.write { db in
                for n in Int64(1)...1_500 {
                    try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(n), .text(body)])
                }
            }
            // The commit is durable in the WAL; the database file has not grown.
            #expect(Self.size(url) - sizeBefore < 64 * 1024)
            #expect(Self.size(URL(fileURLWithPath: url.path + "-wal")) > 4 * 1024 * 1024)
            release.open()
            try await holder.value
            let deadline = ContinuousClock.now + .seconds(20)
            while pool.backgroundCheckpointCount == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(pool.backgroundCheckpointCount >= 1)
            #expect(Self.size(url) - sizeBefore > 4 * 1024 * 1024)
            #expect(try await StorageFixtures.noteNumbers(pool).count == 1_500)
            await pool.close()
        }
    }

    @Test("Writers that keep the writer busy still see the WAL restart from its start, with few checkpoints")
    func theLogRestartsUnderSteadyCommits() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("r.db")
            let pool = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey())
            // About 1,500 pages in one commit: past the background threshold.
            let body = String(repeating: "r", count: 3_000)
            try await pool.write { db in
                for n in Int64(1)...1_500 {
                    try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(n), .text(body)])
                }
            }
            // Eight writers in a row of small commits: the next transaction always begins
            // right after the previous commit, while a background checkpoint runs. Rounds
            // go on until a commit finds the log restarted (the first background round
            // may take long on a loaded machine; without the writer's catch-up, the log
            // never restarts while the writer stays busy).
            let writers = 8
            let commitsEach = 25
            var rounds = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while pool.walRestartCount == 0 && ContinuousClock.now < deadline {
                let round = rounds
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            for commit in 0..<commitsEach {
                                let n = 10_000 + round * 1_000 + writer * 100 + commit
                                try await StorageFixtures.insertNote(pool, Int64(n), "s")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                rounds += 1
            }
            #expect(pool.walRestartCount >= 1)
            // Not about one checkpoint per commit (one in four or so before the catch-up):
            // a round runs per 1,000 frames, or per 256 frames committed while the previous
            // one ran, and a small commit writes one or two frames.
            let commits = rounds * writers * commitsEach
            #expect(pool.backgroundCheckpointCount <= 2 + commits / 50)
            #expect(try await StorageFixtures.noteNumbers(pool).count == 1_500 + commits)
            await pool.close()
        }
    }

    @Test("Closing the pool right after commits that scheduled background checkpoints leaves a database that reopens whole")
    func closingWithACheckpointPending() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("c.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            let body = String(repeating: "y", count: 3_000)
            for chunk in 0..<3 {
                try await pool.write { db in
                    for n in Int64(1)...600 {
                        try db.execute("INSERT INTO note(n, body) VALUES (?, ?)",
                                       [.integer(Int64(chunk) * 1_000 + n), .text(body)])
                    }
                }
            }
            await pool.close()
            await #expect(throws: MedVaultError.self) { try await pool.read { _ in 1 } }
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened).count == 1_800)
            await reopened.close()
        }
    }

    @Test("checkpoint() empties the WAL even while background checkpoints are due, and waits for them")
    func explicitCheckpointEmptiesTheLog() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("e.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            let body = String(repeating: "z", count: 3_000)
            for chunk in 0..<4 {
                try await pool.write { db in
                    for n in Int64(1)...500 {
                        try db.execute("INSERT INTO note(n, body) VALUES (?, ?)",
                                       [.integer(Int64(chunk) * 1_000 + n), .text(body)])
                    }
                }
                try await pool.checkpoint()
                #expect(Self.size(URL(fileURLWithPath: url.path + "-wal")) == 0)
            }
            let sizeAfter = Self.size(url)
            #expect(sizeAfter > 6 * 1024 * 1024)
            // Nothing is left for a later checkpoint to add to the file.
            try await Task.sleep(for: .milliseconds(200))
            #expect(Self.size(url) == sizeAfter)
            await pool.close()
            await #expect(throws: MedVaultError.self) { try await pool.checkpoint() }
        }
    }

    @Test("checkpoint() that a reader keeps from emptying the WAL fails with storage and loses nothing")
    func explicitCheckpointBlockedByAReader() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("b.db")
            let key = StorageFixtures.randomKey()
            var configuration = DatabaseConfiguration()
            configuration.busyTimeoutMilliseconds = 100
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                                   migrator: StorageFixtures.notesMigrator,
                                                   configuration: configuration)
            try await StorageFixtures.insertNote(pool, 1, "one")
            // A read transaction holds its snapshot of the WAL until released.
            let reading = Gate()
            let release = Gate()
            let reader = Task {
                try await pool.read(duration: .long) { db in
                    _ = try db.fetchOne("SELECT count(*) FROM note") { $0.int64(at: 0) }
                    reading.open()
                    release.waitBlocking()
                }
            }
            await reading.waitUntilOpen()
            let error = await #expect(throws: MedVaultError.self) { try await pool.checkpoint() }
            #expect(error?.code == .storage)
            release.open()
            try await reader.value
            try await pool.checkpoint()
            #expect(try await StorageFixtures.noteNumbers(pool) == [1])
            await pool.close()
        }
    }
}
