import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database pool: transactions and concurrency")
struct DatabaseConcurrencyTests {
    @Test("Readers see a consistent snapshot while a long write transaction runs")
    func readersSeeSnapshot() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("s.db"), key: StorageFixtures.randomKey())
            try await StorageFixtures.insertNote(pool, 1, "committed")
            let gate = Gate()
            let readDone = Gate()
            let writer = Task {
                // `.long`: the body blocks, waiting for another task; only the
                // connection's own thread may do that.
                try await pool.write(duration: .long) { db in
                    for n in 2...100 {
                        try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(Int64(n)), .text("pending")])
                    }
                    gate.open()
                    readDone.waitBlocking() // the write transaction stays open until the reads are done
                }
            }
            await gate.waitUntilOpen()
            // The write holds its transaction open: reads proceed and see only committed rows.
            let (first, second) = try await pool.read { db in
                let first = try db.fetchOne("SELECT count(*) FROM note") { row in row.int64(at: 0) }
                let second = try db.fetchOne("SELECT count(*) FROM note") { row in row.int64(at: 0) }
                return (first, second)
            }
            readDone.open()
            #expect(first == 1)
            #expect(second == 1)
            try await writer.value
            #expect(try await StorageFixtures.noteNumbers(pool).count == 100)
            await pool.close()
        }
    }

    @Test("8 concurrent tasks doing mixed reads and writes lose no acknowledged write")
    func concurrentTasksLoseNothing() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("c.db"), key: StorageFixtures.randomKey())
            let deadline = Date().addingTimeInterval(2)
            let acknowledged = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var written: [Int64] = []
                        var counter: Int64 = 0
                        // Time-bound, but at least 15 operations each however loaded the machine is.
                        while Date() < deadline || counter < 15 {
                            counter += 1
                            let n = Int64(worker) * 1_000_000 + counter
                            if counter % 3 == 0 {
                                let seen = try await pool.read { db in
                                    try db.fetchOne("SELECT count(*) FROM note WHERE n / 1000000 = ?",
                                                    [.integer(Int64(worker))]) { row in row.int64(at: 0) } ?? -1
                                }
                                // This worker's own acknowledged writes are all visible to it.
                                #expect(seen == Int64(written.count))
                            } else {
                                try await StorageFixtures.insertNote(pool, n, "w\(worker)")
                                written.append(n)
                            }
                        }
                        return written
                    }
                }
                var all: [Int64] = []
                for try await written in group { all += written }
                return all
            }
            #expect(acknowledged.count >= 8 * 10)
            let stored = try await StorageFixtures.noteNumbers(pool)
            #expect(Set(stored) == Set(acknowledged))
            await pool.close()
        }
    }

    @Test("A transaction whose body throws leaves no trace")
    func throwingTransactionRollsBack() async throws {
        struct Failure: Error {}
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("t.db"), key: StorageFixtures.randomKey())
            await #expect(throws: Failure.self) {
                try await pool.write { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'a')")
                    try db.execute("INSERT INTO note(n, body) VALUES (2, 'b')")
                    throw Failure()
                }
            }
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            // A failing statement in the middle rolls back the earlier ones too.
            await #expect(throws: MedVaultError.self) {
                try await pool.write { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (3, 'c')")
                    try db.execute("INSERT INTO note(n, body) VALUES (3, 'duplicate')")
                }
            }
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            // The writer is usable afterwards.
            try await StorageFixtures.insertNote(pool, 4, "d")
            #expect(try await StorageFixtures.noteNumbers(pool) == [4])
            await pool.close()
        }
    }

    @Test("A cancelled transaction leaves no trace and reports `cancelled`")
    func cancelledTransactionRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("x.db"), key: StorageFixtures.randomKey())
            let gate = Gate()
            let cancelled = Gate()
            let task = Task {
                try await pool.write(duration: .long) { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'a')")
                    gate.open()
                    cancelled.waitBlocking() // the body is still running when the task is cancelled
                    try db.execute("INSERT INTO note(n, body) VALUES (2, 'b')")
                }
            }
            await gate.waitUntilOpen()
            task.cancel()
            cancelled.open()
            let error = await #expect(throws: MedVaultError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            await pool.close()
        }
    }

    @Test("A long statement is interrupted when its task is cancelled, on either thread",
          arguments: [VaultDatabase.ExpectedDuration.short, .long])
    func longStatementIsInterrupted(duration: VaultDatabase.ExpectedDuration) async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("i.db"), key: StorageFixtures.randomKey())
            let started = Date()
            let task = Task {
                try await pool.read(duration: duration) { db in
                    // An endless recursive query: only an interrupt stops it.
                    try db.fetchOne("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c") {
                        row in row.int64(at: 0)
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let error = await #expect(throws: MedVaultError.self) { _ = try await task.value }
            #expect(error?.code == .cancelled)
            #expect(Date().timeIntervalSince(started) < 30)
            // The reader is usable afterwards.
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            await pool.close()
        }
    }

    @Test("Two pools on one file (two processes) wait for each other instead of failing with SQLITE_BUSY")
    func twoPoolsDoNotSurfaceBusy() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("b.db")
            let key = StorageFixtures.randomKey()
            let first = try await StorageFixtures.openNotes(url, key: key)
            let second = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (offset, pool) in [first, second].enumerated() {
                    group.addTask {
                        for n in 0..<100 {
                            try await StorageFixtures.insertNote(pool, Int64(offset * 1000 + n), "p")
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await StorageFixtures.noteNumbers(first).count == 200)
            await first.close()
            await second.close()
        }
    }
}

/// A one-shot signal from a synchronous transaction body to an awaiting test.
final class Gate: @unchecked Sendable {
    // Safety of @unchecked Sendable: `isOpen` is read and written only under `lock`.
    private let lock = NSCondition()
    private var isOpen = false

    func open() {
        lock.withLock {
            isOpen = true
            lock.broadcast()
        }
    }

    /// Blocks the calling thread (a transaction body) until opened, for at most a minute.
    func waitBlocking() {
        let deadline = Date().addingTimeInterval(60)
        lock.withLock {
            while !isOpen && lock.wait(until: deadline) {}
        }
    }

    /// Whether ``open()`` was called.
    var isOpened: Bool {
        lock.withLock { isOpen }
    }

    func waitUntilOpen() async {
        while true {
            if isOpened { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
