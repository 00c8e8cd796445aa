import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// App tables opt in to the change log with `DatabaseConnection.logChange(in:id:operation:version:)`.
@Suite("Change log: app tables opt in")
struct AppTableChangeLogTests {
    typealias F = ChangeFixtures

    static var options: Vault.Options {
        var options = VaultFixtures.options
        var app = AppMigrations()
        app.register("reminders") { db in
            try db.executeScript("CREATE TABLE app_reminder (id BLOB PRIMARY KEY, due_at INTEGER NOT NULL, version INTEGER NOT NULL);")
        }
        options.appMigrations = app
        return options
    }

    @Test("An app's logged write is an entry like MedVault's, notifies its observers, and rolls back with its transaction")
    func loggedAppWrite() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory, options: Self.options)
            let (collector, task) = Collector.collect(try await vault.changeNotifications(in: ["app_reminder"]))
            let id = UUID()
            try await vault.database.write { db in
                try db.execute("INSERT INTO app_reminder (id, due_at, version) VALUES (?, 1, 1)", [id.vaultValue])
                try db.logChange(in: "app_reminder", id: id, operation: .insert, version: 1)
            }
            #expect(await collector.waitForCount(1))
            #expect(await collector.values.first?.tables == ["app_reminder"])
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await vault.database.write { db in
                    try db.execute("UPDATE app_reminder SET due_at = 2, version = 2 WHERE id = ?", [id.vaultValue])
                    try db.logChange(in: "app_reminder", id: id, operation: .update, version: 2)
                    throw Boom()
                }
            }
            try await vault.database.write { db in
                try db.execute("DELETE FROM app_reminder WHERE id = ?", [id.vaultValue])
                try db.logChange(in: "app_reminder", id: id, operation: .delete, version: 1)
                try db.logChange(in: "app_reminder", id: UUID(), operation: ChangeOperation(rawValue: "snooze"))
            }
            let entries = try await F.entries(vault)
            #expect(entries.map(\.operation) == [.insert, .delete, ChangeOperation(rawValue: "snooze")])
            #expect(entries.map(\.version) == [1, 1, nil])
            #expect(entries.allSatisfy { $0.table == "app_reminder" })
            #expect(entries.map(\.sequence) == [1, 2, 3])
            // Stored: an app table's name as text; a built-in operation as its one-byte code.
            _ = try await vault.patients.create(try F.patient())
            let stored = try await vault.database.read { db in
                try db.fetchAll("SELECT typeof(table_name), typeof(operation) FROM medvault_change ORDER BY seq") {
                    "\($0.text(at: 0)) \($0.text(at: 1))"
                }
            }
            #expect(stored == ["text integer", "text integer", "text text", "integer integer"])
            #expect(try await F.entries(vault).last?.table == .patient)
            task.cancel()
            await vault.lock()
        }
    }

    @Test("Bad names, MedVault's tables, a missing table, a bad operation or version, and no transaction are refused; nothing is logged")
    func refusedOptIns() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory, options: Self.options)
            let id = UUID()
            let refused: [(VaultTable, ChangeOperation, Int64?, String)] = [
                ("app reminder", .insert, 1, "table"), ("1app", .insert, 1, "table"), ("app_reminder;--", .insert, 1, "table"),
                ("", .insert, 1, "table"), ("patient", .insert, 1, "table"), ("PATIENT", .insert, 1, "table"),
                ("medvault_change", .insert, 1, "table"), ("sqlite_master", .insert, 1, "table"),
                ("app_missing", .insert, 1, "table"),
                ("app_reminder", ChangeOperation(rawValue: "not plain"), 1, "operation"),
                ("app_reminder", ChangeOperation(rawValue: ""), 1, "operation"),
                ("app_reminder", .update, 0, "version"),
            ]
            for (table, operation, version, field) in refused {
                let error = await expectMedVaultError(.invalidArgument, field: field) {
                    try await vault.database.write { db in
                        try db.logChange(in: table, id: id, operation: operation, version: version)
                    }
                }
                // The error names the argument, never its value.
                if !table.rawValue.isEmpty {
                    #expect(!(error.map { String(describing: $0) } ?? "").contains(table.rawValue))
                }
            }
            // Outside a transaction: refused, not written in an autocommit statement of its own.
            await expectMedVaultError(.invalidArgument) {
                try await vault.database.writeWithoutTransaction { db in
                    try db.logChange(in: "app_reminder", id: id, operation: .insert, version: 1)
                }
            }
            #expect(try await F.entries(vault).isEmpty)
            await vault.lock()
        }
    }
}
