import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import Testing

/// The schema MedVault's migrations build, compared with a checked-in dump
/// (`Tests/Vectors/medvault-schema.sql`), so that no released migration changes
/// unnoticed.
@Suite("Schema: the golden dump of sqlite_master")
struct SchemaGoldenTests {
    @Test("MedVault's migrations build exactly the checked-in schema")
    func schemaMatchesGolden() async throws {
        let actual = try await SchemaDump.dump(migrator: MedVaultSchema.migrator)
        if ProcessInfo.processInfo.environment[SchemaDump.updateVariable] == "1" {
            try actual.write(to: SchemaDump.goldenURL, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: SchemaDump.goldenURL, encoding: .utf8)
        if let diff = SchemaDump.diff(expected: expected, actual: actual) {
            Issue.record("""
                The schema built by MedVaultSchema.migrator differs from \(SchemaDump.goldenURL.path).
                A released migration must never change: add a new migration instead. If the change is a \
                new migration, regenerate the file with \(SchemaDump.updateVariable)=1 swift test \
                --filter SchemaGoldenTests and review its diff.
                \(diff)
                """)
        }
    }

    @Test("A migration whose SQL changed no longer matches the golden schema, and the diff shows where")
    func changedMigrationIsCaught() async throws {
        let expected = try String(contentsOf: SchemaDump.goldenURL, encoding: .utf8)
        var migrations = MedVaultSchema.migrator.migrations
        let original = migrations[1]
        // "medications" as if someone edited its SQL in place: one more column.
        migrations[1] = .init(original.name) { db in
            try original.apply(db)
            try db.executeScript("ALTER TABLE medication_schedule ADD COLUMN note TEXT;")
        }
        let actual = try await SchemaDump.dump(migrator: SchemaMigrator(migrations))
        let diff = try #require(SchemaDump.diff(expected: expected, actual: actual))
        #expect(diff.contains("+ line"))
        #expect(diff.contains("note TEXT"))
    }

    @Test("A renamed migration no longer matches the golden schema")
    func renamedMigrationIsCaught() async throws {
        let expected = try String(contentsOf: SchemaDump.goldenURL, encoding: .utf8)
        var migrations = MedVaultSchema.migrator.migrations
        migrations[2] = .init("create", apply: migrations[2].apply)
        let actual = try await SchemaDump.dump(migrator: SchemaMigrator(migrations))
        let diff = try #require(SchemaDump.diff(expected: expected, actual: actual))
        #expect(diff.contains("applied migrations"))
    }

    @Test("Dumps normalise whitespace, so only meaningful changes differ")
    func whitespaceIsNormalised() {
        #expect(SchemaDump.normalised("CREATE TABLE t (\n    a   INTEGER,\n\n\tb TEXT\n)") ==
                ["CREATE TABLE t (", "a INTEGER,", "b TEXT", ")"])
        #expect(SchemaDump.diff(expected: "a\nb\n", actual: "a\nb\n") == nil)
        #expect(SchemaDump.diff(expected: "a\nb\n", actual: "a\nc\n") == "- line 2: b\n+ line 2: c")
    }
}
