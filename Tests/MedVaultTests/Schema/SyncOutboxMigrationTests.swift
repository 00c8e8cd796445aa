import Foundation
@testable import MedVault
import MedVaultTestSupport
import Testing

/// Migration "sync outbox without an id index": the outbox rebuilt without the `UNIQUE`
/// index of its envelope ids, every row kept in push order, every check kept.
@Suite("Schema: the sync outbox without an id index")
struct SyncOutboxMigrationTests {
    static let name = "sync outbox without an id index"

    static func open(_ url: URL, key: SecureBytes, migrated: Bool) async throws -> VaultDatabase {
        let all = MedVaultSchema.migrator.migrations
        let migrations = migrated ? all : all.filter { $0.name != name }
        #expect(migrations.count == all.count - (migrated ? 0 : 1))
        return try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: SchemaMigrator(migrations))
    }

    static func rows(_ database: VaultDatabase) async throws -> [String] {
        try await database.read { db in
            try db.fetchAll("SELECT position, hex(envelope_id), hex(record_key), hex(ciphertext), epoch FROM sync_outbox ORDER BY position") {
                "\($0.int64(at: 0)) \($0.text(at: 1)) \($0.text(at: 2)) \($0.text(at: 3)) \($0.int64(at: 4))"
            }
        }
    }

    static func indexes(_ database: VaultDatabase) async throws -> [String] {
        try await database.read { db in
            try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sync_outbox' ORDER BY name") {
                $0.text(at: 0)
            }
        }
    }

    @Test("Envelopes sealed before the upgrade stay, in push order, byte for byte; the id index is gone, the epoch index, the checks and an app's view stay; positions go on after the last and are never given twice")
    func keepsTheOutbox() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("v.db")
            let key = StorageFixtures.randomKey()
            let old = try await Self.open(url, key: key, migrated: false)
            // Positions with a gap (an acknowledgement removed one), two epochs.
            try await old.write { db in
                for (position, epoch) in [(3, 0), (4, 1), (7, 1)] {
                    try db.execute("INSERT INTO sync_outbox (position, envelope_id, record_key, ciphertext, epoch) VALUES (?, ?, ?, ?, ?)",
                                   [.integer(Int64(position)), .blob(Data(repeating: UInt8(position), count: 16)),
                                    .blob(Data(repeating: 0xA0 | UInt8(position), count: 32)),
                                    .blob(Data((0..<300).map { UInt8(($0 + position) % 256) })), .integer(Int64(epoch))])
                }
            }
            // An app's view of the outbox (what waits to be sent) keeps working.
            try await old.write { db in
                try db.executeScript("CREATE VIEW app_waiting AS SELECT count(*) AS waiting FROM sync_outbox;")
            }
            let before = try await Self.rows(old)
            #expect(try await Self.indexes(old) == ["sqlite_autoindex_sync_outbox_1", "sync_outbox_by_epoch"])
            await old.close()

            let new = try await Self.open(url, key: key, migrated: true)
            #expect(try await Self.rows(new) == before)
            #expect(before.count == 3)
            #expect(try await Self.indexes(new) == ["sync_outbox_by_epoch"])
            try await new.write { db in
                // The checks of the columns hold as before.
                #expect(throws: (any Error).self) {
                    try db.execute("INSERT INTO sync_outbox (envelope_id, record_key, ciphertext) VALUES (?, ?, ?)",
                                   [.blob(Data(count: 15)), .blob(Data(count: 32)), .blob(Data(count: 1))])
                }
                #expect(throws: (any Error).self) {
                    try db.execute("INSERT INTO sync_outbox (envelope_id, record_key, ciphertext, epoch) VALUES (?, ?, ?, -1)",
                                   [.blob(Data(count: 16)), .blob(Data(count: 32)), .blob(Data(count: 1))])
                }
                try db.execute("INSERT INTO sync_outbox (envelope_id, record_key, ciphertext) VALUES (?, ?, ?)",
                               [.blob(Data(count: 16)), .blob(Data(count: 32)), .blob(Data(count: 1))])
                #expect(try db.fetchOne("SELECT max(position) FROM sync_outbox") { $0.int64(at: 0) } == 8)
                #expect(try db.fetchOne("SELECT waiting FROM app_waiting") { $0.int64(at: 0) } == 4)
                // Positions are never given twice, also once acknowledgements emptied it.
                try db.execute("DELETE FROM sync_outbox")
                try db.execute("INSERT INTO sync_outbox (envelope_id, record_key, ciphertext) VALUES (?, ?, ?)",
                               [.blob(Data(count: 16)), .blob(Data(count: 32)), .blob(Data(count: 1))])
                #expect(try db.fetchOne("SELECT position FROM sync_outbox") { $0.int64(at: 0) } == 9)
                // The epoch index serves the re-seal's look-up, as before.
                let plan = try db.fetchAll("EXPLAIN QUERY PLAN SELECT 1 FROM sync_outbox WHERE epoch <> 1 LIMIT 1") {
                    $0.text(at: 3)
                }
                #expect(plan.contains { $0.contains("sync_outbox_by_epoch") }, "\(plan)")
            }
            await new.close()
        }
    }
}
