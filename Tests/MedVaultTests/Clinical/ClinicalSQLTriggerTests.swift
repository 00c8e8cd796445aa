import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// The rules that protect the medical record hold in SQL too: raw statements that
/// bypass the repositories are refused by triggers, with errors that carry no data.
@Suite("Clinical SQL triggers")
struct ClinicalSQLTriggerTests {
    typealias F = ClinicalFixtures

    struct Fixture {
        let database: TemporaryVaultDatabase
        let records: SQLCipherClinicalRecords
        let patient: Patient
        let session: ClinicalSession
        let diagnosis: Diagnosis
    }

    static func fixture() async throws -> Fixture {
        let database = try await TemporaryVaultDatabase.open()
        let records = SQLCipherClinicalRecords(pool: database.pool, clock: SteppingClock().recordClock)
        let patient = try await records.patients.create(F.patient(F.marker, F.marker, nationalId: F.marker))
        let session = try await records.sessions.create(
            ClinicalSession(patientID: patient.id, date: F.now, status: .completed, notes: F.marker))
        let diagnosis = try await records.diagnoses.create(
            Diagnosis(sessionID: session.id, snapshot: F.snapshot, clinicalNotes: F.marker, diagnosedAt: F.now))
        return Fixture(database: database, records: records, patient: patient, session: session, diagnosis: diagnosis)
    }

    /// Runs raw SQL expecting `.immutable`, and checks the error shows no record value.
    static func expectImmutable(_ pool: VaultDatabase, _ sql: String, _ arguments: [VaultValue],
                                sourceLocation: SourceLocation = #_sourceLocation) async {
        await expectMedVaultError(.immutable, sourceLocation: sourceLocation) {
            try await pool.write { db in try db.execute(sql, arguments) }
        }
    }

    @Test func rawDeleteOfAPatientIsRefused() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        await Self.expectImmutable(pool, "DELETE FROM patient", [])
        await Self.expectImmutable(pool, "DELETE FROM patient WHERE id = ?", [f.patient.id.vaultValue])
        await Self.expectImmutable(pool, "UPDATE patient SET id = ? WHERE id = ?",
                                   [UUID().vaultValue, f.patient.id.vaultValue])
        #expect(try await f.records.patients.get(f.patient.id) == f.patient)
        #expect(try await f.records.patients.count(filter: .all) == 1)
    }

    @Test(arguments: ["code", "title", "title_es", "uri", "release_version"])
    func rawUpdateOfASnapshotColumnIsRefused(column: String) async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        await Self.expectImmutable(f.database.pool, "UPDATE diagnosis SET \(column) = ? WHERE id = ?",
                                   [.text(F.marker), f.diagnosis.id.vaultValue])
        // Even writing the same value: the snapshot columns are never written after insert.
        await Self.expectImmutable(f.database.pool, "UPDATE diagnosis SET \(column) = \(column)", [])
        #expect(try await f.records.diagnoses.get(f.diagnosis.id) == f.diagnosis)
    }

    @Test func rawChangesOfOtherFixedDiagnosisFieldsAndDeletionAreRefused() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        let id = f.diagnosis.id.vaultValue
        await Self.expectImmutable(pool, "UPDATE diagnosis SET diagnosed_at = diagnosed_at + 1 WHERE id = ?", [id])
        await Self.expectImmutable(pool, "UPDATE diagnosis SET session_id = ? WHERE id = ?", [UUID().vaultValue, id])
        await Self.expectImmutable(pool, "DELETE FROM diagnosis", [])
        // The amendable columns stay writable.
        try await pool.write { db in
            try db.execute("UPDATE diagnosis SET severity = 'mild' WHERE id = ?", [id])
        }
        #expect(try await f.records.diagnoses.get(f.diagnosis.id).severity == .mild)
    }

    @Test func rawDeleteOrReopeningOfACompletedSessionIsRefused() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        let id = f.session.id.vaultValue
        await Self.expectImmutable(pool, "DELETE FROM clinical_session WHERE id = ?", [id])
        await Self.expectImmutable(pool, "UPDATE clinical_session SET status = 'scheduled' WHERE id = ?", [id])
        let other = try await f.records.patients.create(F.patient("Otra", "Persona"))
        await Self.expectImmutable(pool, "UPDATE clinical_session SET patient_id = ? WHERE id = ?",
                                   [other.id.vaultValue, id])
        #expect(try await f.records.sessions.get(f.session.id) == f.session)
    }

    /// A raw insert for a missing patient is refused by the foreign key; one for an
    /// inactive patient is not refused by SQL since migration 5 (InsertCheckSchema: the
    /// insert trigger cost a statement journal per insert), only by the repository.
    @Test func rawSessionInsertChecksThePatient() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        let insert = """
            INSERT INTO clinical_session (id, patient_id, date_ms, type, duration_minutes, status, created_at, \
            updated_at, version, notes) VALUES (?, ?, 0, 'inPerson', 50, 'scheduled', 0, 0, 1, ?)
            """
        await expectMedVaultError(.notFound) {
            try await pool.write { db in
                try db.execute(insert, [UUID().vaultValue, UUID().vaultValue, .text(F.marker)])
            }
        }
        try await f.records.patients.deactivate(f.patient.id)
        await expectMedVaultError(.validation) {
            try await f.records.sessions.create(ClinicalSession(patientID: f.patient.id, date: Date()))
        }
        let rawID = UUID()
        try await pool.write { db in
            try db.execute(insert, [rawID.vaultValue, f.patient.id.vaultValue, .text(F.marker)])
        }
        #expect(try await f.records.sessions.get(rawID).patientID == f.patient.id)
        // No insert trigger is left on the tables that get bulk inserts (the view
        // `diagnosis` has one for raw SQL; MedVault inserts into its tables directly;
        // `icd11_snapshot` takes one insert per distinct snapshot, a few hundred a clinic).
        let insertTriggers = try await pool.read { db in
            try db.fetchAll("""
                SELECT name FROM sqlite_master WHERE type = 'trigger' \
                AND tbl_name IN ('clinical_session', 'diagnosis_row') AND sql LIKE '%INSERT%'
                """) { try $0[0] as String }
        }
        #expect(insertTriggers.isEmpty)
        // A duplicate id through raw SQL: the error names no value either.
        try await f.records.patients.reactivate(f.patient.id)
        await expectMedVaultError(.duplicate) {
            try await pool.write { db in
                try db.execute(insert, [f.session.id.vaultValue, f.patient.id.vaultValue, .text(F.marker)])
            }
        }
    }
}
