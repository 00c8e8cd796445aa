import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Migration 3 turns a version-2 database (FTS4 patient index) into one with the
/// ordered token index, without losing a patient from search.
@Suite("Patient search index migration")
struct PatientSearchMigrationTests {
    @Test func versionTwoPatientsAreSearchableAfterTheMigration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("vault.db")
        let key = SecureBytes.random(count: 32)
        let versionTwo = SchemaMigrator(Array(MedVaultSchema.migrator.migrations.prefix(2)))
        let people = [ClinicalFixtures.patient("José", "García", email: "pepe@ex.com"),
                      ClinicalFixtures.patient("Ana", "Núñez", phone: "600 123"),
                      ClinicalFixtures.patient("Anabel", "Ruiz")]

        // What a version-2 MedVault wrote: the patient row and its FTS4 row.
        let old = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: versionTwo)
        try await old.write { db in
            for patient in people {
                try db.execute("""
                    INSERT INTO patient (id, first_name, last_name, sort_key, date_of_birth, national_id, email, \
                    phone_number, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 1)
                    """, [patient.id.vaultValue, .text(patient.firstName), .text(patient.lastName),
                          .text(patient.sortKey), patient.dateOfBirth.vaultValue, patient.nationalId.vaultValue,
                          patient.email.vaultValue, patient.phoneNumber.vaultValue])
                let tokens = patient.searchTokens
                try db.execute("INSERT INTO patient_search (docid, tokens) VALUES (?, ?)",
                               [.integer(db.lastInsertedRowID), .text(tokens.joined(separator: " "))])
            }
        }
        await old.close()

        let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                               migrator: MedVaultSchema.migrator)
        let patients = SQLCipherPatientRepository(pool: pool)
        #expect(try await patients.search("ana").map(\.lastName) == ["Núñez", "Ruiz"])
        #expect(try await patients.search("pepe").map(\.id) == [people[0].id])
        #expect(try await patients.search("600").map(\.id) == [people[1].id])
        let schema = try await pool.read { db in
            (version: try db.fetchOne("PRAGMA user_version") { $0.int64(at: 0) },
             tables: try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%search%'") {
                 $0.text(at: 0)
             })
        }
        #expect(schema.version == Int64(MedVaultSchema.migrator.latestVersion))
        #expect(!schema.tables.contains("patient_search"))
        #expect(schema.tables.contains("patient_search_token"))
        #expect(schema.tables.contains("medication_search"))
        await pool.close()
    }
}
