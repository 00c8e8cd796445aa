import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys

/// Databases as MedVault wrote them before migrations were recorded by name.
enum LegacySchema {
    /// Creates a database at `url` that has applied MedVault's first `version`
    /// migrations the way the numbered migrator of the first releases did: each in its
    /// own transaction together with `PRAGMA user_version = <its number>`, and no
    /// migrations table. `fill` then writes rows as that release would have.
    static func create(
        at url: URL, key: SecureBytes, version: Int,
        fill: @escaping @Sendable (DatabaseConnection) throws -> Void = { _ in }
    ) async throws {
        let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing)
        do {
            let migrations = Array(MedVaultSchema.migrator.migrations.prefix(version))
            try await pool.writeWithoutTransaction { db in
                for (offset, migration) in migrations.enumerated() {
                    try db.execute("BEGIN IMMEDIATE")
                    try migration.apply(db)
                    try db.executeScript("PRAGMA user_version = \(offset + 1)")
                    try db.execute("COMMIT")
                }
            }
            try await pool.write(fill)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    /// A patient row as migrations 1 and 2 stored it, with its FTS4 search row.
    static func insertPatient(_ patient: Patient, into db: DatabaseConnection) throws {
        try db.execute("""
            INSERT INTO patient (id, first_name, last_name, sort_key, date_of_birth, national_id, email, \
            phone_number, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 1)
            """, [patient.id.vaultValue, .text(patient.firstName), .text(patient.lastName),
                  .text(patient.sortKey), patient.dateOfBirth.vaultValue, patient.nationalId.vaultValue,
                  patient.email.vaultValue, patient.phoneNumber.vaultValue])
        try db.execute("INSERT INTO patient_search (docid, tokens) VALUES (?, ?)",
                       [.integer(db.lastInsertedRowID), .text(patient.searchTokens.joined(separator: " "))])
    }

    /// The schema state: `user_version` and the recorded migration names (nil when
    /// there is no migrations table).
    static func state(_ pool: VaultDatabase) async throws -> (version: Int64, names: [String]?) {
        try await pool.read { db in
            let version = try db.fetchOne("PRAGMA user_version") { $0.int64(at: 0) } ?? 0
            let hasTable = try db.fetchOne("""
                SELECT 1 FROM sqlite_master WHERE name = '\(SchemaMigrator.appliedMigrationsTable)'
                """) { _ in true } ?? false
            guard hasTable else { return (version, nil) }
            let names = try db.fetchAll("SELECT name FROM \(SchemaMigrator.appliedMigrationsTable) ORDER BY rowid") {
                $0.text(at: 0)
            }
            return (version, names)
        }
    }
}
