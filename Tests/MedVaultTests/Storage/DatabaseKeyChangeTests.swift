import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database key change: export, verify, replace")
struct DatabaseKeyChangeTests {
    private func makeDatabase(_ url: URL, key: SecureBytes, rows: Int) async throws {
        let pool = try await StorageFixtures.openNotes(url, key: key)
        try await pool.write { db in
            for n in 1...rows {
                try db.execute("INSERT INTO note(n, body) VALUES (?, ?)",
                               [.integer(Int64(n)), .text(String(repeating: "nota clínica ", count: 40))])
            }
        }
        await pool.close()
    }

    @Test("The copy opens with the new key only, keeps every row and the schema version, and reports progress")
    func exportReplaceAndReopen() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let oldKey = StorageFixtures.randomKey()
            let newKey = StorageFixtures.randomKey()
            try await makeDatabase(url, key: oldKey, rows: 3000)
            let copy = DatabaseKeyChange.copyURL(for: url)
            let reports = ProgressLog()
            try DatabaseKeyChange.exportCopy(of: url, oldKey: oldKey, to: copy, newKey: newKey,
                                             configuration: DatabaseConfiguration()) { fraction in
                reports.append(fraction)
                return true
            }
            try DatabaseKeyChange.verify(copy, key: newKey, configuration: DatabaseConfiguration())
            #expect(try DatabaseKeyChange.replace(url, with: copy), "the swap is durable: the folder was synced")
            #expect(!FileManager.default.fileExists(atPath: copy.path))

            let values = reports.values
            #expect(values.count >= 2)
            #expect(values.last == 1)
            #expect(values == values.sorted())

            let oldOpen = await #expect(throws: MedVaultError.self) {
                _ = try await StorageFixtures.openNotes(url, key: oldKey, mode: .openExisting)
            }
            #expect(oldOpen?.code == .wrongKey)
            let pool = try await StorageFixtures.openNotes(url, key: newKey, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(pool) == Array(1...3000).map(Int64.init))
            let version = try await pool.read { db in try db.fetchOne("PRAGMA user_version") { row in row.int64(at: 0) } }
            #expect(version == 1)
            await pool.close()
        }
    }

    @Test("Stopping the export through the progress callback removes the partial copy and leaves the original")
    func stoppedExportLeavesOriginal() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let oldKey = StorageFixtures.randomKey()
            try await makeDatabase(url, key: oldKey, rows: 3000)
            let before = StorageFixtures.bytes(url)
            let copy = DatabaseKeyChange.copyURL(for: url)
            let error = #expect(throws: MedVaultError.self) {
                try DatabaseKeyChange.exportCopy(of: url, oldKey: oldKey, to: copy, newKey: StorageFixtures.randomKey(),
                                                 configuration: DatabaseConfiguration()) { _ in false }
            }
            #expect(error?.code == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: copy.path))
            #expect(StorageFixtures.bytes(url) == before)
        }
    }

    @Test("Verifying a copy with the wrong key fails")
    func verifyWithWrongKeyFails() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            try await makeDatabase(url, key: StorageFixtures.randomKey(), rows: 10)
            let error = #expect(throws: MedVaultError.self) {
                try DatabaseKeyChange.verify(url, key: StorageFixtures.randomKey(), configuration: DatabaseConfiguration())
            }
            #expect(error?.code == .wrongKey)
        }
    }
}

/// Collects progress reports from a synchronous callback.
final class ProgressLog: @unchecked Sendable {
    // Safety of @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Double] = []

    func append(_ value: Double) { lock.withLock { stored.append(value) } }
    var values: [Double] { lock.withLock { stored } }
}

@Suite("Database pool: key change while in use")
struct VaultDatabaseKeyChangeTests {
    @Test("Reads and writes issued during a key change wait for it and then work under the new key")
    func changeKeyWhileInUse() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let oldKey = StorageFixtures.randomKey()
            let newKey = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: oldKey)
            try await pool.write { db in
                for n in 1...2000 {
                    try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(Int64(n)), .text(String(repeating: "z", count: 200))])
                }
            }
            _ = try await StorageFixtures.noteNumbers(pool) // a reader is open
            let log = ProgressLog()
            async let change: Void = pool.changeKey(to: newKey) { fraction in
                log.append(fraction)
                return true
            }
            async let concurrentWrite: Void = StorageFixtures.insertNote(pool, 5000, "during")
            async let concurrentRead = StorageFixtures.noteNumbers(pool)
            try await change
            try await concurrentWrite
            let seen = try await concurrentRead
            #expect(seen.count >= 2000)
            #expect(log.values.last == 1)
            let after = try await StorageFixtures.noteNumbers(pool)
            #expect(after.count == 2001)
            await pool.close()

            let oldOpen = await #expect(throws: MedVaultError.self) {
                _ = try await StorageFixtures.openNotes(url, key: oldKey, mode: .openExisting)
            }
            #expect(oldOpen?.code == .wrongKey)
            let reopened = try await StorageFixtures.openNotes(url, key: newKey, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened).count == 2001)
            await reopened.close()
        }
    }

    @Test("A key change stopped by its progress callback leaves the old key in force")
    func stoppedChangeKeepsOldKey() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let oldKey = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: oldKey)
            try await pool.write { db in
                for n in 1...2000 {
                    try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(Int64(n)), .text(String(repeating: "z", count: 200))])
                }
            }
            let error = await #expect(throws: MedVaultError.self) {
                try await pool.changeKey(to: StorageFixtures.randomKey()) { _ in false }
            }
            #expect(error?.code == .cancelled)
            #expect(try await StorageFixtures.noteNumbers(pool).count == 2000)
            await pool.close()
            let reopened = try await StorageFixtures.openNotes(url, key: oldKey, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened).count == 2000)
            await reopened.close()
        }
    }
}
