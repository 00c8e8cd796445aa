import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Where transactions run: short ones on the calling thread when their connection is
/// idle, everything else in line on the connection's own thread.
@Suite("Database pool: which thread runs a transaction")
struct TransactionDurationTests {
    /// The name of the thread running the transaction body.
    private static func threadName() -> String {
        Thread.current.name ?? ""
    }

    /// Starts a write that inserts note 1 and holds the writer until `release` opens;
    /// returns once it holds it. `.long`: the body blocks, waiting for the test, and
    /// only the connection's own thread may do that.
    fileprivate static func holdTheWriter(_ pool: VaultDatabase) async -> (write: Task<Void, any Error>, release: Gate) {
        let inWrite = Gate()
        let release = Gate()
        let write = Task {
            try await pool.write(duration: .long) { db in
                try db.execute("INSERT INTO note(n, body) VALUES (1, 'first')")
                inWrite.open()
                release.waitBlocking()
            }
        }
        await inWrite.waitUntilOpen()
        return (write, release)
    }

    /// Returns once a caller waits in line for the writer.
    fileprivate static func waitUntilSomebodyIsInLine(_ pool: VaultDatabase) async throws {
        while pool.writerQueueLength == 0 { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("A short transaction on an idle connection runs on the calling thread; a long one on the connection's")
    func shortRunsHereLongRunsOnTheConnectionThread() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("p.db"), key: StorageFixtures.randomKey())
            let shortWrite = try await pool.write { db in
                try db.execute("INSERT INTO note(n, body) VALUES (1, 'a')")
                return Self.threadName()
            }
            let longWrite = try await pool.write(duration: .long) { db in
                try db.execute("INSERT INTO note(n, body) VALUES (2, 'b')")
                return Self.threadName()
            }
            let shortRead = try await pool.read { _ in Self.threadName() }
            let longRead = try await pool.read(duration: .long) { _ in Self.threadName() }
            #expect(!shortWrite.hasPrefix("medvault."))
            #expect(longWrite == "medvault.writer")
            // With no read connection opened yet, reads use the idle writer.
            #expect(!shortRead.hasPrefix("medvault."))
            #expect(longRead == "medvault.writer")
            #expect(pool.openedReaderCount == 0)
            #expect(try await StorageFixtures.noteNumbers(pool) == [1, 2])
            await pool.close()
        }
    }

    @Test("A short write that finds the writer busy waits in line on the writer's thread, then commits")
    func shortWriteOnABusyWriterWaitsInLine() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("q.db"), key: StorageFixtures.randomKey())
            let (first, release) = await Self.holdTheWriter(pool)
            let second = Task {
                try await pool.write { db in
                    // Runs after the first write committed: it sees its row.
                    let count = try db.fetchOne("SELECT count(*) FROM note") { $0.int64(at: 0) }
                    try db.execute("INSERT INTO note(n, body) VALUES (2, 'second')")
                    return (count, Self.threadName())
                }
            }
            // Meanwhile reads go to a read connection, on its thread when long.
            let readThread = try await pool.read(duration: .long) { _ in Self.threadName() }
            // Release the first write only once the second is in line for the writer.
            try await Self.waitUntilSomebodyIsInLine(pool)
            release.open()
            try await first.value
            let (countSeen, thread) = try await second.value
            #expect(countSeen == 1)
            #expect(thread == "medvault.writer")
            #expect(readThread == "medvault.read0")
            #expect(try await StorageFixtures.noteNumbers(pool) == [1, 2])
            await pool.close()
        }
    }

    @Test("A short transaction that fails on the calling thread rolls back and frees the connection")
    func failedShortTransactionFreesTheConnection() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("f.db"), key: StorageFixtures.randomKey())
            await #expect(throws: MedVaultError.self) {
                try await pool.write { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'rolled back')")
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'duplicate key')")
                }
            }
            // The next short write still finds the writer idle and runs here.
            let thread = try await pool.write { db in
                try db.execute("INSERT INTO note(n, body) VALUES (2, 'kept')")
                return Self.threadName()
            }
            #expect(!thread.hasPrefix("medvault."))
            #expect(try await StorageFixtures.noteNumbers(pool) == [2])
            await pool.close()
        }
    }
}

extension TransactionDurationTests {
    @Test("A short transaction called from the main actor does not run on the main thread")
    func shortTransactionLeavesTheMainThread() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("m.db"), key: StorageFixtures.randomKey())
            #expect(try await Self.writeFromTheMainActor(pool) == false)
            await pool.close()
        }
    }

    /// Writes from the main actor; whether the body ran on the main thread.
    @MainActor
    private static func writeFromTheMainActor(_ pool: VaultDatabase) async throws -> Bool {
        try await pool.write { db in
            try db.execute("INSERT INTO note(n, body) VALUES (1, 'a')")
            return Thread.isMainThread
        }
    }

    @Test("A short transaction whose task is cancelled inside its body rolls back and reports `cancelled`")
    func shortTransactionCancelledInsideItsBody() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("c.db"), key: StorageFixtures.randomKey())
            let task = Task {
                try await pool.write { db -> String in
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'rolled back')")
                    withUnsafeCurrentTask { $0?.cancel() }
                    return Self.threadName()
                }
            }
            let error = await #expect(throws: MedVaultError.self) { _ = try await task.value }
            #expect(error?.code == .cancelled)
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            // The connection was given back: the next short write runs on the fast path.
            let thread = try await pool.write { db in
                try db.execute("INSERT INTO note(n, body) VALUES (2, 'kept')")
                return Self.threadName()
            }
            #expect(!thread.hasPrefix("medvault."))
            #expect(pool.writerQueueLength == 0)
            #expect(try await StorageFixtures.noteNumbers(pool) == [2])
            await pool.close()
        }
    }

    @Test("A short write cancelled while it waits in line leaves the line, and the fast path works again")
    func shortWriteCancelledInLine() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("l.db"), key: StorageFixtures.randomKey())
            let (first, release) = await Self.holdTheWriter(pool)
            let waiting = Task { try await StorageFixtures.insertNote(pool, 2, "cancelled in line") }
            try await Self.waitUntilSomebodyIsInLine(pool)
            waiting.cancel()
            release.open()
            try await first.value
            let error = await #expect(throws: MedVaultError.self) { try await waiting.value }
            #expect(error?.code == .cancelled)
            #expect(pool.writerQueueLength == 0)
            let thread = try await pool.write { db in
                try db.execute("INSERT INTO note(n, body) VALUES (3, 'fast path')")
                return Self.threadName()
            }
            #expect(!thread.hasPrefix("medvault."))
            #expect(try await StorageFixtures.noteNumbers(pool) == [1, 3])
            await pool.close()
        }
    }
}

@Suite("Database pool: where opening runs migrations")
struct MigrationDurationTests {
    /// A migrator whose migrations record the thread they ran on.
    private static func recordingMigrator(_ threads: ThreadNames) -> SchemaMigrator {
        SchemaMigrator([
            .init("notes") { db in
                threads.append(Thread.current.name ?? "")
                try db.executeScript("CREATE TABLE note(n INTEGER PRIMARY KEY, body TEXT NOT NULL);")
            },
        ])
    }

    @Test("Pending migrations run on the writer's thread; an up-to-date database runs none")
    func migrationsRunOnTheWriterThread() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("m.db")
            let key = StorageFixtures.randomKey()
            let threads = ThreadNames()
            let created = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                                      migrator: Self.recordingMigrator(threads))
            await created.close()
            #expect(threads.all == ["medvault.writer"])
            let reopened = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                       migrator: Self.recordingMigrator(threads))
            #expect(threads.all == ["medvault.writer"])  // nothing to migrate the second time
            #expect(try await StorageFixtures.noteNumbers(reopened).isEmpty)
            await reopened.close()
        }
    }
}

/// Thread names collected from migration closures and tasks, from any thread.
final class ThreadNames: @unchecked Sendable {
    // Safety of @unchecked Sendable: `names` is read and written only under `lock`.
    private let lock = NSLock()
    private var names: [String] = []

    func append(_ name: String) { lock.withLock { names.append(name) } }
    var all: [String] { lock.withLock { names } }

    /// The current thread's name (synchronous: `Thread.current` is not for async contexts).
    static func current() -> String {
        Thread.current.name ?? ""
    }
}

@Suite("Connection ownership")
struct ConnectionOwnershipTests {
    @Test("One holder at a time; a caller in line keeps later callers off the fast path until it is served")
    func oneHolderAndTheLineComesFirst() async throws {
        let ownership = ConnectionOwnership()
        #expect(ownership.claimIfIdle())
        #expect(!ownership.claimIfIdle())  // held
        ownership.joinLine()
        ownership.release()
        #expect(!ownership.claimIfIdle())  // free, but somebody is in line
        // Served on a thread of its own, as the connection's thread would.
        let served = Gate()
        let thread = Thread {
            ownership.claimInLine()
            served.open()
        }
        thread.start()
        await served.waitUntilOpen()
        #expect(!ownership.claimIfIdle())  // held by the served caller
        ownership.release()
        #expect(ownership.claimIfIdle())   // line empty, connection free
        ownership.release()
    }

    @Test("A caller in line waits until the holder gives the connection back")
    func claimInLineWaitsForTheHolder() async throws {
        let ownership = ConnectionOwnership()
        #expect(ownership.claimIfIdle())
        ownership.joinLine()
        let served = Gate()
        let thread = Thread {
            ownership.claimInLine()
            served.open()
        }
        thread.start()
        try await Task.sleep(for: .milliseconds(50))
        #expect(!served.isOpened)
        ownership.release()
        await served.waitUntilOpen()
        ownership.release()
        #expect(ownership.claimIfIdle())
        ownership.release()
    }
}
