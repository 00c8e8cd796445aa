import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// An app's own tables through `Vault.Options.appMigrations`: created once, kept across
/// reopening and across MedVault's own schema upgrades.
@Suite("App migrations: an app's tables beside MedVault's")
struct AppMigrationTests {
    /// The app's first migration: a reminders table of its own.
    static func reminders() -> AppMigrations {
        var app = AppMigrations()
        app.register("reminders") { db in
            try db.executeScript("CREATE TABLE app_reminder (id INTEGER PRIMARY KEY, label TEXT NOT NULL);")
        }
        return app
    }

    static func reminderLabels(_ pool: VaultDatabase) async throws -> [String] {
        try await pool.read { db in try db.fetchAll("SELECT label FROM app_reminder ORDER BY id") { $0.text(at: 0) } }
    }

    @Test("An app table added through Vault.Options survives locking and reopening, its migration run once")
    func appTableSurvivesReopen() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            var options = VaultFixtures.options
            options.appMigrations = Self.reminders()
            let created = try await Vault.create(at: dir.url, password: password, options: options)
            try await created.vault.database.write { db in
                try db.execute("INSERT INTO app_reminder (label) VALUES (?)", [.text("call back")])
            }
            await created.vault.lock()
            // Registering the same migration again must not run it again (CREATE TABLE would fail).
            let vault = try await Vault.open(at: dir.url, password: password, options: options)
            #expect(try await Self.reminderLabels(vault.database) == ["call back"])
            let state = try await LegacySchema.state(vault.database)
            #expect(state.names == SchemaMigrationTests.allNames + ["app:reminders"])
            // The app's migrations do not count in MedVault's schema version.
            #expect(try await vault.info().schemaVersion == MedVaultSchema.migrator.latestVersion)
            #expect(try await vault.verify().problemsBesidesTestKDF.isEmpty)
            await vault.lock()
        }
    }

    @Test("An existing vault opened with a new app migration gets the app's table")
    func appMigrationAddedLater() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()
            var options = VaultFixtures.options
            options.appMigrations = Self.reminders()
            let vault = try await Vault.open(at: dir.url, password: password, options: options)
            try await vault.database.write { db in
                try db.execute("INSERT INTO app_reminder (label) VALUES (?)", [.text("x")])
            }
            #expect(try await Self.reminderLabels(vault.database) == ["x"])
            await vault.lock()
        }
    }

    @Test("A vault at an older MedVault schema with the app's table is upgraded: the table and its rows survive")
    func appTableSurvivesMedVaultUpgrade() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            let ana = ClinicalFixtures.patient("Ana", "Núñez")
            // What an app on a MedVault with two migrations had: MedVault's 1–2, then its own.
            let olderMedVault = SchemaMigrator(Array(MedVaultSchema.migrator.migrations.prefix(2)))
            let old = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                                  migrator: olderMedVault.appending(Self.reminders()))
            try await old.write { db in
                try LegacySchema.insertPatient(ana, into: db)
                try db.execute("INSERT INTO app_reminder (label) VALUES (?)", [.text("kept")])
            }
            #expect(try await LegacySchema.state(old).version == 2)
            await old.close()

            // The current MedVault, and the app's next migration too.
            var app = Self.reminders()
            app.register("reminder due date") { db in
                try db.executeScript("ALTER TABLE app_reminder ADD COLUMN due_at INTEGER;")
            }
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator(appending: app))
            #expect(try await Self.reminderLabels(pool) == ["kept"])
            let state = try await LegacySchema.state(pool)
            // user_version counts MedVault's own migrations, every one of which ran.
            #expect(state.version == Int64(MedVaultSchema.migrator.latestVersion))
            #expect(state.names == ["clinical records", "medications", "app:reminders",
                                    "ordered patient search index", "icd11 catalogue cache",
                                    "parent checks without statement journals",
                                    "medication strength, dose corrections and refills",
                                    "medication schedule lifecycle and reminders", "session signatures and addenda",
                                    "change log", "sync state", "audit trail", "sync attachment staging",
                                    "medication stock ledger", "sync refusals", "sync secret", "professional signatures", "sync device sequences", "sync epochs", "audit origin", "session note search", "dose journal", "sync seal plan", "shared diagnosis snapshots", "sync outbox without an id index",
                                    "app:reminder due date"])
            #expect(try await SQLCipherPatientRepository(pool: pool).search("ana").map(\.id) == [ana.id])
            try await pool.write { db in
                try db.execute("UPDATE app_reminder SET due_at = 1 WHERE label = 'kept'")
            }
            await pool.close()
        }
    }

    @Test("App names are namespaced: an app migration named like MedVault's runs, under app:")
    func appNamesCannotCollide() async throws {
        try await withTemporaryDirectory { dir in
            var app = AppMigrations()
            app.register("medications") { db in try db.executeScript("CREATE TABLE app_medication_note(x);") }
            #expect(app.names == ["medications"])
            let pool = try await VaultDatabase.open(at: dir.file("v.db"), key: StorageFixtures.randomKey(),
                                                   mode: .createIfMissing, migrator: MedVaultSchema.migrator(appending: app))
            #expect(try await LegacySchema.state(pool).names == SchemaMigrationTests.allNames + ["app:medications"])
            let tables = try await pool.read { db in
                try db.fetchAll("SELECT name FROM sqlite_master WHERE name = 'app_medication_note'") { $0.text(at: 0) }
            }
            #expect(tables == ["app_medication_note"])
            await pool.close()
        }
    }

    @Test("A database with an app migration the app no longer registers is refused: schemaTooNew")
    func unregisteredAppMigrationIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            var options = VaultFixtures.options
            options.appMigrations = Self.reminders()
            let created = try await Vault.create(at: dir.url, password: password, options: options)
            await created.vault.lock()
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            }
            #expect(error?.code == .schemaTooNew)
        }
    }
}
