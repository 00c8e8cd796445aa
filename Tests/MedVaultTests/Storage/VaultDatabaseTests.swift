import CSQLCipher
import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database pool: encryption at rest, raw key, typed values, migrations")
struct VaultDatabaseTests {
    @Test("A marker written into a record is in neither the database nor its -wal/-shm, and the header is not plain SQLite")
    func markerIsNotOnDisk() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            let marker = "ZZMARKER-Núñez-\(UUID().uuidString)"
            let pool = try await StorageFixtures.openNotes(url, key: key)
            for n in 1...50 { try await StorageFixtures.insertNote(pool, Int64(n), "\(marker) \(n)") }
            // Before close the data sits in the WAL: check it too.
            for suffix in ["", "-wal", "-shm"] {
                if let bytes = StorageFixtures.bytes(URL(fileURLWithPath: url.path + suffix)) {
                    #expect(bytes.range(of: Data(marker.utf8)) == nil, "marker found in \(suffix)")
                    #expect(bytes.range(of: Data("ZZMARKER".utf8)) == nil)
                }
            }
            await pool.close()
            let file = try #require(StorageFixtures.bytes(url))
            #expect(file.range(of: Data("ZZMARKER".utf8)) == nil)
            #expect(!file.starts(with: Data("SQLite format 3".utf8)))
            for suffix in ["-wal", "-shm"] {
                if let bytes = StorageFixtures.bytes(URL(fileURLWithPath: url.path + suffix)) {
                    #expect(bytes.range(of: Data("ZZMARKER".utf8)) == nil)
                }
            }
            // And it reads back after a reopen.
            let reopened = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
            #expect(try await StorageFixtures.noteNumbers(reopened).count == 50)
            await reopened.close()
        }
    }

    @Test("A new database file is private to its owner (mode 0600)")
    func newFileIsPrivate() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let pool = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey())
            try await StorageFixtures.insertNote(pool, 1, "x")
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            await pool.close()
        }
    }

    @Test("The sqlcipher shell opens the database with the same raw key and cipher settings")
    func sqlcipherShellOpensTheDatabase() async throws {
        let shell = try #require(StorageFixtures.which("sqlcipher"), "the sqlcipher shell is installed by make deps")
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            try await StorageFixtures.insertNote(pool, 7, "seven")
            await pool.close()
            let script = """
                PRAGMA key = "x'\(StorageFixtures.hex(key))'";
                PRAGMA cipher_page_size = 4096;
                SELECT body FROM note WHERE n = 7;
                """
            let result = try await StorageFixtures.run(shell, [url.path], input: script)
            #expect(result.status == 0)
            #expect(result.output.contains("seven"))
            // Without the page size pin, SQLCipher 3's default (1024) cannot read it.
            let wrong = try await StorageFixtures.run(shell, [url.path], input: """
                PRAGMA key = "x'\(StorageFixtures.hex(key))'";
                SELECT body FROM note WHERE n = 7;
                """)
            #expect(!wrong.output.contains("seven"))
        }
    }

    @Test("Typed values round-trip: integers, doubles, Unicode text, blobs, UUIDs, dates, NULL")
    func typedValuesRoundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let migrator = SchemaMigrator([
                .init("values") { db in
                    try db.executeScript("CREATE TABLE v(i INTEGER, d REAL, t TEXT, b BLOB, u BLOB, ms INTEGER, day TEXT, o TEXT);")
                },
            ])
            let pool = try await VaultDatabase.open(at: dir.file("v.db"), key: StorageFixtures.randomKey(),
                                                   mode: .createIfMissing, migrator: migrator)
            let id = UUID()
            let instant = Date(millisecondsSince1970: 1_700_000_123_456)
            let day = try CalendarDate(iso8601: "1984-02-29")
            let blob = Data([0, 1, 2, 255])
            try await pool.write { db in
                try db.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                    Int64.min.vaultValue, 3.25.vaultValue, "José Núñez 🩺".vaultValue, blob.vaultValue,
                    id.vaultValue, instant.vaultValue, day.vaultValue, (nil as String?).vaultValue,
                ])
                try db.execute("INSERT INTO v(b) VALUES (?)", [Data().vaultValue])
            }
            let row = try await pool.read { db in
                try db.fetchOne("SELECT i, d, t, b, u, ms, day, o FROM v WHERE i IS NOT NULL") { row in
                    (try row[0] as Int64, try row[1] as Double, try row[2] as String, try row[3] as Data,
                     try row[4] as UUID, try row[5] as Date, try row[6] as CalendarDate, try row[7] as String?)
                }
            }
            let values = try #require(row)
            #expect(values.0 == Int64.min)
            #expect(values.1 == 3.25)
            #expect(values.2 == "José Núñez 🩺")
            #expect(values.3 == blob)
            #expect(values.4 == id)
            #expect(values.5 == instant)
            #expect(values.6 == day)
            #expect(values.7 == nil)
            let empty = try await pool.read { db in
                try db.fetchOne("SELECT b, typeof(b) FROM v WHERE i IS NULL") { row in (try row[0] as Data, row.text(at: 1)) }
            }
            #expect(empty?.0 == Data())
            #expect(empty?.1 == "blob")
            // A NULL read as a non-optional is a typed error, not a crash.
            await #expect(throws: MedVaultError.self) {
                _ = try await pool.read { db in try db.fetchOne("SELECT o FROM v") { row in try row[0] as String } }
            }
            await pool.close()
        }
    }

    @Test("A wrong number of arguments is a typed error and writes nothing")
    func argumentCountMismatch() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("a.db"), key: StorageFixtures.randomKey())
            let error = await #expect(throws: MedVaultError.self) {
                try await pool.write { db in try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(1)]) }
            }
            #expect(error?.code == .invalidArgument)
            #expect(try await StorageFixtures.noteNumbers(pool).isEmpty)
            await pool.close()
        }
    }

    @Test("Migrations run once each, tracked by name and counted in user_version")
    func migrationsAreTracked() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("m.db")
            let key = StorageFixtures.randomKey()
            let v1 = SchemaMigrator([
                .init("a") { db in try db.executeScript("CREATE TABLE a(x);") },
            ])
            let v2 = SchemaMigrator(v1.migrations + [
                .init("b") { db in try db.executeScript("CREATE TABLE b(x);") },
            ])
            let first = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: v1)
            await first.close()
            let second = try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: v2)
            let state = try await second.read { db in
                (try db.fetchOne("PRAGMA user_version") { row in row.int64(at: 0) },
                 try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row in row.text(at: 0) })
            }
            #expect(state.0 == 2)
            #expect(state.1 == ["a", "b", "medvault_migrations"])
            let applied = try await second.read { db in try v2.appliedMigrationNames(db) }
            #expect(applied == ["a", "b"])
            await second.close()
        }
    }

    @Test("A failing migration leaves the schema at the previous version")
    func failingMigrationRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("m.db")
            let key = StorageFixtures.randomKey()
            let broken = SchemaMigrator([
                .init("a") { db in try db.executeScript("CREATE TABLE a(x);") },
                .init("broken") { db in
                    try db.executeScript("CREATE TABLE b(x);")
                    try db.executeScript("THIS IS NOT SQL;")
                },
            ])
            let v1 = SchemaMigrator(Array(broken.migrations.prefix(1)))
            let created = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: v1)
            await created.close()
            await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: broken)
            }
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                   migrator: v1)
            let tables = try await pool.read { db in
                try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row in row.text(at: 0) }
            }
            #expect(tables == ["a", "medvault_migrations"])
            #expect(try await pool.read { db in try broken.appliedMigrationNames(db) } == ["a"])
            await pool.close()
        }
    }

    @Test("A database written by a newer schema is refused and left untouched")
    func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("new.db")
            let key = StorageFixtures.randomKey()
            let newer = SchemaMigrator([
                .init("a") { db in try db.executeScript("CREATE TABLE a(x);") },
                .init("b") { db in try db.executeScript("CREATE TABLE b(x);") },
            ])
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: newer)
            await pool.close()
            let before = try #require(StorageFixtures.bytes(url))
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                migrator: SchemaMigrator(Array(newer.migrations.prefix(1))))
            }
            #expect(error?.code == .schemaTooNew)
            #expect(StorageFixtures.bytes(url) == before)
        }
    }

    @Test("Repeated or empty migration names are refused")
    func migrationNameClashIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let clash = SchemaMigrator([.init("b") { _ in }, .init("b") { _ in }])
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: dir.file("g.db"), key: StorageFixtures.randomKey(),
                                                mode: .createIfMissing, migrator: clash)
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test("Invalid configuration and key sizes are typed errors")
    func invalidArguments() async throws {
        try await withTemporaryDirectory { dir in
            var configuration = DatabaseConfiguration()
            configuration.readerCount = 0
            let badConfiguration = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: dir.file("c.db"), key: StorageFixtures.randomKey(),
                                                mode: .createIfMissing, configuration: configuration)
            }
            #expect(badConfiguration?.code == .invalidArgument)
            let badKey = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: dir.file("c.db"), key: SecureBytes.random(count: 16),
                                                mode: .createIfMissing)
            }
            #expect(badKey?.code == .invalidArgument)
            #expect(!FileManager.default.fileExists(atPath: dir.file("c.db").path))
        }
    }

    @Test("After close, calls fail with `locked` and the pool's key copy is wiped")
    func closedPoolIsLocked() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("c.db"), key: StorageFixtures.randomKey())
            _ = try await StorageFixtures.noteNumbers(pool)
            await pool.close()
            let readError = await #expect(throws: MedVaultError.self) { _ = try await StorageFixtures.noteNumbers(pool) }
            #expect(readError?.code == .locked)
            let writeError = await #expect(throws: MedVaultError.self) { try await StorageFixtures.insertNote(pool, 1, "x") }
            #expect(writeError?.code == .locked)
            #expect(pool.keyBox.key.wasWiped)
            #expect(throws: MedVaultError.self) { try pool.keyBox.key.withUnsafeBytes { _ in } }
        }
    }
}
