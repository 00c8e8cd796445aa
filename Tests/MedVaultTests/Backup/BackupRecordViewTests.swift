import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A backup's record counts since `diagnosis` became a view (migration "shared
/// diagnosis snapshots"): the view is counted, an app's own views are not.
@Suite("Vault: backup counts with record views")
struct BackupRecordViewTests {
    @Test("A backup counts the diagnosis view and ignores an app's view, even one naming a dropped table")
    func recordViewCountedAppViewIgnored() async throws {
        try await withTemporaryDirectory { dir in
            var migrations = AppMigrations()
            migrations.register("notes") { db in
                try db.executeScript("""
                    CREATE TABLE app_note (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
                    CREATE VIEW app_note_view AS SELECT id, text FROM app_note;
                    """)
            }
            // The app drops its table and forgets the view: reading the view now fails.
            migrations.register("no more notes") { db in try db.executeScript("DROP TABLE app_note;") }
            var options = VaultFixtures.options
            options.appMigrations = migrations
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: options).vault
            let patient = try await vault.patients.create(ClinicalFixtures.patient())
            let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: ClinicalFixtures.now))
            try await vault.diagnoses.create([
                Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: ClinicalFixtures.now),
                Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: ClinicalFixtures.now),
            ])
            await #expect(throws: MedVaultError.self) {
                try await vault.database.read { db in try db.fetchOne("SELECT count(*) FROM app_note_view") { _ in 0 } }
            }

            let report = try await vault.backup(to: dir.file("backup"))
            #expect(report.recordCounts["diagnosis"] == 2)
            #expect(report.recordCounts["app_note_view"] == nil)
            #expect(try await vault.info().recordCounts["diagnosis"] == 2)
            await vault.lock()
        }
    }
}
