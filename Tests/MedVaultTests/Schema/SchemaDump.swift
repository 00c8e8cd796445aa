import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport

/// A text dump of a database's schema, for the golden schema test.
///
/// Every entry of `sqlite_master` (type, name, table, SQL) sorted by type and name,
/// each SQL line trimmed and its runs of spaces collapsed, preceded by the names of the
/// applied migrations in order: any change to a migration's SQL, to the order that
/// leaves a different schema, or to a migration's name changes the dump.
enum SchemaDump {
    /// The checked-in dump of MedVault's schema after all its migrations.
    static let goldenURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/medvault-schema.sql")

    /// Set to 1 to rewrite ``goldenURL`` from the current migrations.
    static let updateVariable = "MEDVAULT_UPDATE_GOLDEN"

    /// The dump of a new database brought up to date by `migrator`.
    static func dump(migrator: SchemaMigrator) async throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try await VaultDatabase.open(at: directory.file("schema.db"), key: SecureBytes.random(count: 32),
                                               mode: .createIfMissing, migrator: migrator)
        let text = try await pool.read { db in try dump(db, names: try migrator.appliedMigrationNames(db)) }
        await pool.close()
        return text
    }

    static func dump(_ db: DatabaseConnection, names: [String]) throws -> String {
        var lines = ["-- MedVault schema: the golden file of SchemaGoldenTests.",
                     "-- Regenerate: \(updateVariable)=1 swift test --filter SchemaGoldenTests",
                     "-- applied migrations: \(names.joined(separator: " | "))"]
        let entries = try db.fetchAll("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") { row in
            (type: row.text(at: 0), name: row.text(at: 1), table: row.text(at: 2),
             sql: row.isNull(at: 3) ? nil : row.text(at: 3))
        }
        for entry in entries {
            lines.append("")
            lines.append("-- \(entry.type) \(entry.name) on \(entry.table)")
            lines += normalised(entry.sql ?? "(automatic)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `sql`'s lines, trimmed, with runs of whitespace collapsed and blank lines dropped.
    static func normalised(_ sql: String) -> [String] {
        sql.split(whereSeparator: \.isNewline)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
    }

    /// A line diff of `actual` against `expected` (`-` expected only, `+` actual
    /// only), or nil when they are equal.
    static func diff(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var changes: [(line: Int, text: String)] = []
        for change in new.difference(from: old) {
            switch change {
            case let .remove(offset, element, _): changes.append((offset, "- line \(offset + 1): \(element)"))
            case let .insert(offset, element, _): changes.append((offset, "+ line \(offset + 1): \(element)"))
            }
        }
        return changes.sorted { $0.line < $1.line }.map(\.text).joined(separator: "\n")
    }
}
