import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `CommitDurability.walOnly`: a commit to the WAL without its own sync (the audit
/// trail's unlock entry), and the sync that makes it durable later.
@Suite("Database pool: commits without their own sync")
struct CommitDurabilityTests {
    private static func insert(_ n: Int64) -> @Sendable (DatabaseConnection) throws -> Void {
        { db in try db.execute("INSERT INTO note(n, body) VALUES (?, 'note')", [.integer(n)]) }
    }

    private static func synchronousLevel(_ pool: VaultDatabase) async throws -> Int64? {
        try await pool.write { db in try db.fetchOne("PRAGMA synchronous") { $0.int64(at: 0) } }
    }

    @Test("A walOnly write is committed for every connection, is remembered as unsynced until synced, and leaves the writer at synchronous = FULL")
    func walOnlyCommitsAndRestoresFull() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("d.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            #expect(try await pool.hasDeferredCommits == false)
            try await pool.write(durability: .walOnly, Self.insert(1))
            #expect(try await pool.hasDeferredCommits)
            // Committed: a second pool (its own connections) sees it.
            let other = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(other) == [1])
            await other.close()
            // The next writes commit durably again (2 = FULL).
            #expect(try await Self.synchronousLevel(pool) == 2)
            try await pool.syncDeferredCommits()
            #expect(try await pool.hasDeferredCommits == false)
            // A sync with nothing to sync opens no file and succeeds.
            try await pool.syncDeferredCommits()
            await pool.close()
        }
    }

    @Test("A walOnly write runs under synchronous = OFF only while the log is empty, under NORMAL once it holds frames")
    func levelFollowsTheLog() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("l.db")
            let key = StorageFixtures.randomKey()
            let created = try await StorageFixtures.openNotes(url, key: key)
            // The migrations' frames are in the log: the header is not new, keep its sync.
            let level: @Sendable (DatabaseConnection) throws -> Int64? = { db in
                try db.fetchOne("PRAGMA synchronous") { $0.int64(at: 0) }
            }
            #expect(try await created.write(durability: .walOnly, level) == 1)
            await created.close()
            // Closed: checkpointed and removed; reopened, the first read leaves an empty log.
            let pool = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(DatabaseFile.logIsEmpty(of: url.path))
            let levelOnEmptyLog: Int64? = try await pool.write(durability: .walOnly) { db in
                try Self.insert(1)(db)
                return try level(db)
            }
            #expect(levelOnEmptyLog == 0)
            #expect(!DatabaseFile.logIsEmpty(of: url.path))
            #expect(try await pool.write(durability: .walOnly, level) == 1)
            #expect(try await pool.write(level) == 2)
            #expect(try await Self.synchronousLevel(pool) == 2)
            await pool.close()
            // The commit made under OFF was committed: reopened, the note is there.
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened) == [1])
            await reopened.close()
        }
    }

    @Test("An empty log that existed before the connection opened (truncated by a checkpoint, maybe not on the disk) takes NORMAL, not OFF")
    func truncatedLogKeepsTheHeaderSync() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("t.db")
            let key = StorageFixtures.randomKey()
            let level: @Sendable (DatabaseConnection) throws -> Int64? = { db in
                try db.fetchOne("PRAGMA synchronous") { $0.int64(at: 0) }
            }
            let holder = try await StorageFixtures.openNotes(url, key: key)
            try await holder.write(Self.insert(1))
            try await holder.checkpoint()
            #expect(DatabaseFile.logIsEmpty(of: url.path), "the checkpoint truncated the log to 0 bytes")
            // A second pool (another process's, say) opens on that truncated log.
            let pool = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(DatabaseFile.logIsEmpty(of: url.path))
            #expect(try await pool.write(durability: .walOnly, level) == 1)
            await pool.close()
            await holder.close()
        }
    }

    @Test("A full write grouped with a walOnly one makes the whole group commit durably")
    func groupWithAFullWriteCommitsFull() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("g.db"), key: StorageFixtures.randomKey())
            let inWrite = Gate()
            let release = Gate()
            let holder = Task {
                try await pool.write(duration: .long) { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (0, 'holder')")
                    inWrite.open()
                    release.waitBlocking()
                }
            }
            await inWrite.waitUntilOpen()
            var writes: [Task<Void, any Error>] = []
            for (n, durability) in [(Int64(1), CommitDurability.walOnly), (2, .full)] {
                let before = pool.writerQueueLength
                writes.append(Task { try await pool.write(durability: durability, Self.insert(n)) })
                while pool.writerQueueLength == before { try await Task.sleep(for: .milliseconds(2)) }
            }
            let commitsBefore = pool.writerCommitCount
            release.open()
            try await holder.value
            for write in writes { try await write.value }
            #expect(pool.writerCommitCount - commitsBefore == 2)
            #expect(try await pool.hasDeferredCommits == false)
            #expect(try await StorageFixtures.noteNumbers(pool) == [0, 1, 2])
            #expect(try await Self.synchronousLevel(pool) == 2)
            await pool.close()
        }
    }

    @Test("A walOnly write that throws rolls back and leaves the writer at FULL, with nothing to sync")
    func failingWalOnlyWrite() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("f.db"), key: StorageFixtures.randomKey())
            struct Failure: Error {}
            await #expect(throws: Failure.self) {
                try await pool.write(durability: .walOnly) { db in
                    try Self.insert(1)(db)
                    throw Failure()
                }
            }
            #expect(try await pool.hasDeferredCommits == false)
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            #expect(try await Self.synchronousLevel(pool) == 2)
            await pool.close()
        }
    }

    @Test("The sync refuses a log replaced by a symbolic link, touching nothing; after close() it fails with locked")
    func syncFailures() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("s.db")
            let pool = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey())
            try await pool.write(durability: .walOnly, Self.insert(1))
            let (target, putBack) = Self.replaceLogWithLink(of: url, in: dir)
            let error = await #expect(throws: MedVaultError.self) { try await pool.syncDeferredCommits() }
            #expect(error?.code == .storage)
            #expect(error?.reason.contains("symbolic link") == true)
            #expect(try await pool.hasDeferredCommits)
            #expect(try Data(contentsOf: target) == Data("x".utf8))
            putBack()
            try await pool.syncDeferredCommits()
            #expect(try await pool.hasDeferredCommits == false)
            await pool.close()
            let closed = await #expect(throws: MedVaultError.self) { try await pool.syncDeferredCommits() }
            #expect(closed?.code == .locked)
        }
    }

    @Test("A forced sync syncs the log even when this pool deferred nothing: another process's unlock entry may be in it")
    func forcedSync() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("f.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            let other = try await StorageFixtures.openNotes(url, key: key)
            try await other.write(durability: .walOnly, Self.insert(1))
            #expect(try await pool.hasDeferredCommits == false)
            // Unforced, this pool has nothing of its own to sync and does not touch the log;
            // forced, it syncs it: a log replaced by a link makes that attempt visible.
            let (target, putBack) = Self.replaceLogWithLink(of: url, in: dir)
            try await pool.syncDeferredCommits()
            let error = await #expect(throws: MedVaultError.self) { try await pool.syncDeferredCommits(force: true) }
            #expect(error?.code == .storage)
            #expect(try Data(contentsOf: target) == Data("x".utf8))
            putBack()
            try await pool.syncDeferredCommits(force: true)
            await other.close()
            await pool.close()
        }
    }

    /// Moves the log of the database at `url` aside and puts a symbolic link to a file
    /// holding "x" in its place; returns that file and what puts the log back.
    static func replaceLogWithLink(of url: URL, in dir: TemporaryDirectory) -> (target: URL, putBack: () -> Void) {
        let log = url.path + "-wal"
        let moved = url.path + "-wal.moved"
        #expect(rename(log, moved) == 0)
        let target = dir.file("elsewhere")
        #expect(FileManager.default.createFile(atPath: target.path, contents: Data("x".utf8)))
        #expect(symlink(target.path, log) == 0)
        return (target, { #expect(unlink(log) == 0 && rename(moved, log) == 0) })
    }
}
