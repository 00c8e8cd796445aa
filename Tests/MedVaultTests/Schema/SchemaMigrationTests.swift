import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// MedVault's schema history: named migrations, vaults made before the names, and
/// databases from a newer build.
@Suite("Schema migrations: names, existing vaults, newer databases")
struct SchemaMigrationTests {
    static let allNames = ["clinical records", "medications", "ordered patient search index", "icd11 catalogue cache",
                           "parent checks without statement journals",
                           "medication strength, dose corrections and refills",
                           "medication schedule lifecycle and reminders",
                           "session signatures and addenda", "change log", "sync state", "audit trail",
                           "sync attachment staging", "medication stock ledger", "sync refusals",
                           "sync secret", "professional signatures", "sync device sequences", "sync epochs", "audit origin",
                           "session note search", "dose journal", "sync seal plan", "shared diagnosis snapshots",
                           "sync outbox without an id index"]

    @Test("A new database records MedVault's migrations by name, in order, and user_version counts them")
    func newDatabaseRecordsNames() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await VaultDatabase.open(at: dir.file("v.db"), key: StorageFixtures.randomKey(),
                                                   mode: .createIfMissing, migrator: MedVaultSchema.migrator)
            let state = try await LegacySchema.state(pool)
            #expect(state.names == Self.allNames)
            #expect(state.version == Int64(MedVaultSchema.migrator.latestVersion))
            #expect(MedVaultSchema.migrator.latestVersion == Self.allNames.count)
            #expect(!MedVaultSchema.migrator.migrations.contains { $0.name.hasPrefix(AppMigrations.namePrefix) })
            await pool.close()
        }
    }

    @Test("Vaults made by the numbered migrator (user_version 1, 2, 3) open, keep their rows and are upgraded",
          arguments: [1, 2, 3])
    func numberedVaultsAreUpgraded(version: Int) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("old.db")
            let key = StorageFixtures.randomKey()
            let ana = ClinicalFixtures.patient("Ana", "Núñez", phone: "600 123")
            try await LegacySchema.create(at: url, key: key, version: version) { db in
                // At version 3 the FTS4 table is gone and the token index is the repository's.
                if version < 3 {
                    try LegacySchema.insertPatient(ana, into: db)
                } else {
                    try db.execute(ClinicalRows.insertPatient, ClinicalRows.insertArguments(ana))
                    try PatientSearchIndex.insert(ana, rowid: db.lastInsertedRowID, in: db)
                }
            }
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator)
            let state = try await LegacySchema.state(pool)
            #expect(state.names == Self.allNames)
            #expect(state.version == Int64(MedVaultSchema.migrator.latestVersion))
            // The upgraded schema is exactly a new vault's.
            let dump = try await pool.read { db in
                try SchemaDump.dump(db, names: try MedVaultSchema.migrator.appliedMigrationNames(db))
            }
            #expect(dump == (try String(contentsOf: SchemaDump.goldenURL, encoding: .utf8)))
            let patients = SQLCipherPatientRepository(pool: pool)
            #expect(try await patients.get(ana.id).lastName == "Núñez")
            #expect(try await patients.search("nunez").map(\.id) == [ana.id])
            #expect(try await patients.search("600").map(\.id) == [ana.id])
            await pool.close()
            // Opening again runs nothing and changes nothing.
            let before = try #require(StorageFixtures.bytes(url))
            let again = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                    migrator: MedVaultSchema.migrator)
            #expect(try await LegacySchema.state(again).names == Self.allNames)
            await again.close()
            #expect(StorageFixtures.bytes(url) == before)
        }
    }

    @Test("A numbered vault beyond this build's schema is refused and left untouched")
    func numberedVaultTooNew() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("new.db")
            let key = StorageFixtures.randomKey()
            try await LegacySchema.create(at: url, key: key, version: 3) { db in
                try db.executeScript("PRAGMA user_version = \(MedVaultSchema.migrator.latestVersion + 1)")
            }
            let before = try #require(StorageFixtures.bytes(url))
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                migrator: MedVaultSchema.migrator)
            }
            #expect(error?.code == .schemaTooNew)
            #expect(StorageFixtures.bytes(url) == before)
        }
    }

    @Test("A database that applied a migration this build does not know is refused, untouched, its name not shown")
    func unknownMigrationIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("newer.db")
            let key = StorageFixtures.randomKey()
            let newer = SchemaMigrator(MedVaultSchema.migrator.migrations + [
                .init("a later MedVault's change") { db in try db.executeScript("CREATE TABLE later(x);") },
            ])
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: newer)
            await pool.close()
            let before = try #require(StorageFixtures.bytes(url))
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                migrator: MedVaultSchema.migrator)
            }
            #expect(error?.code == .schemaTooNew)
            #expect(error.map { !"\($0)".contains("later") } == true)
            #expect(StorageFixtures.bytes(url) == before)
        }
    }

    @Test("Pending migrations run in list order after out-of-order history, each once")
    func pendingMigrationsRunOnce() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("m.db")
            let key = StorageFixtures.randomKey()
            let counter = RunCounter()
            func migration(_ name: String) -> SchemaMigrator.Migration {
                .init(name) { db in
                    counter.ran(name)
                    try db.executeScript("CREATE TABLE \(name)(x);")
                }
            }
            let first = SchemaMigrator([migration("a"), migration("c")])
            try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: first).close()
            let second = SchemaMigrator([migration("a"), migration("b"), migration("c")])
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: second)
            try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: second).close()
            #expect(counter.names == ["a", "c", "b"])
            #expect(try await LegacySchema.state(pool).names == ["a", "c", "b"])
            #expect(try await LegacySchema.state(pool).version == 3)
            await pool.close()
        }
    }

    @Test("Migration 3's frozen folding still agrees with the live search folding")
    func frozenFoldingAgreesWithSearchText() {
        // When this fails, SearchText changed: the tokens migration 3 stored no longer
        // match what searches fold. Add a migration that re-indexes; never edit migration 3.
        for text in ["José García-Núñez", "ÅSTRÖM o'Brien", "600 123 456", "ana@ex.com", "Łódź İstanbul ß", "日本 ﬁ"] {
            #expect(PatientSearchSchema.foldedTokens(of: text) == SearchText.tokens(of: text), "\(text)")
        }
    }

    @Test("An empty migration name is refused before anything runs")
    func emptyNameIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            var app = AppMigrations()
            app.register("") { db in try db.executeScript("CREATE TABLE app_x(x);") }
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: dir.file("e.db"), key: StorageFixtures.randomKey(),
                                                mode: .createIfMissing, migrator: MedVaultSchema.migrator(appending: app))
            }
            #expect(error?.code == .invalidArgument)
        }
    }
}

/// Records which migrations ran, from the writer's thread.
final class RunCounter: @unchecked Sendable {
    // Safety of @unchecked Sendable: `recorded` is read and written only under `lock`.
    private let lock = NSLock()
    private var recorded: [String] = []

    var names: [String] { lock.withLock { recorded } }
    func ran(_ name: String) { lock.withLock { recorded.append(name) } }
}
