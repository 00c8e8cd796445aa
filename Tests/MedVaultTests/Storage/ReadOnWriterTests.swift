import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Reads run on the idle writer until one finds it busy; they must behave exactly
/// as on a read connection: read-only, in one snapshot, and leave the writer able to write.
@Suite("Database pool: reads on the idle writer")
struct ReadOnWriterTests {
    @Test("Sequential reads and writes keep a single connection")
    func sequentialUseOpensNoReader() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("r.db"), key: StorageFixtures.randomKey())
            for n in 1...5 {
                try await StorageFixtures.insertNote(pool, Int64(n), "note")
                #expect(try await StorageFixtures.noteNumbers(pool) == Array(1...Int64(n)))
            }
            #expect(pool.openedReaderCount == 0)
            await pool.close()
        }
    }

    @Test("A read on the writer cannot write, and the writer writes again afterwards")
    func readOnWriterIsReadOnly() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("q.db"), key: StorageFixtures.randomKey())
            let refused = await #expect(throws: MedVaultError.self) {
                try await pool.read { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (1, 'sneaky')")
                }
            }
            #expect(refused?.sqliteCode.map { $0 & 0xFF } == 8)  // SQLITE_READONLY, as on a read connection
            #expect(refused?.code == .permissionDenied)
            // A script is checked statement by statement: reads run, the write is refused.
            let script = await #expect(throws: MedVaultError.self) {
                try await pool.read { db in
                    try db.executeScript("SELECT count(*) FROM note; PRAGMA user_version; DELETE FROM note; ")
                }
            }
            #expect(script?.sqliteCode.map { $0 & 0xFF } == 8)
            try await pool.read { db in try db.executeScript("SELECT 1; -- a comment\n PRAGMA user_version;") }
            #expect(pool.openedReaderCount == 0)  // they ran on the writer
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            try await StorageFixtures.insertNote(pool, 2, "allowed")
            #expect(try await StorageFixtures.noteNumbers(pool) == [2])
            await pool.close()
        }
    }

    @Test("A read that finds the writer busy opens a reader and sees only committed rows; reads stay on readers")
    func busyWriterOpensAReader() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("b.db"), key: StorageFixtures.randomKey())
            try await StorageFixtures.insertNote(pool, 1, "committed")
            let inWrite = Gate()
            let readDone = Gate()
            let writer = Task {
                // `.long`: the body blocks, waiting for another task; only the
                // connection's own thread may do that.
                try await pool.write(duration: .long) { db in
                    try db.execute("INSERT INTO note(n, body) VALUES (2, 'pending')")
                    inWrite.open()
                    readDone.waitBlocking()
                }
            }
            await inWrite.waitUntilOpen()
            let seen = try await StorageFixtures.noteNumbers(pool)
            readDone.open()
            try await writer.value
            #expect(seen == [1])
            #expect(pool.openedReaderCount == 1)
            // From now on reads use the reader, even with the writer idle.
            #expect(try await StorageFixtures.noteNumbers(pool) == [1, 2])
            #expect(pool.openedReaderCount == 1)
            await pool.close()
        }
    }

    @Test("A write waits for a read running on the writer and then commits")
    func writeWaitsForReadOnWriter() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("w.db"), key: StorageFixtures.randomKey())
            let inRead = Gate()
            let release = Gate()
            let reader = Task {
                // `.long`: the body blocks, waiting for this test; only the connection's
                // own thread may do that.
                try await pool.read(duration: .long) { db -> Int64? in
                    inRead.open()
                    release.waitBlocking()
                    return try db.fetchOne("SELECT count(*) FROM note") { $0.int64(at: 0) }
                }
            }
            await inRead.waitUntilOpen()
            let write = Task { try await StorageFixtures.insertNote(pool, 7, "after the read") }
            try await Task.sleep(for: .milliseconds(20))
            release.open()
            #expect(try await reader.value == 0)  // its snapshot predates the write
            try await write.value
            #expect(try await StorageFixtures.noteNumbers(pool) == [7])
            await pool.close()
        }
    }
}
