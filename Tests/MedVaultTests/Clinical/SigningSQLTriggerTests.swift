import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Signed content holds in SQL too: raw statements on the open database that would
/// change or delete a signed session's content, its signature or its addenda are
/// refused by UPDATE and DELETE triggers (`SigningSchema`), with errors that carry no data.
@Suite("Signing SQL triggers")
struct SigningSQLTriggerTests {
    typealias F = ClinicalFixtures

    struct Fixture {
        let database: TemporaryVaultDatabase
        let records: SQLCipherClinicalRecords
        let session: ClinicalSession
        let diagnosis: Diagnosis
        let signature: SessionSignature
        let addendum: SessionAddendum
    }

    static func fixture() async throws -> Fixture {
        let database = try await TemporaryVaultDatabase.open()
        let records = SQLCipherClinicalRecords(pool: database.pool, clock: SteppingClock().recordClock)
        try await records.professional.save(SigningConformanceTests.professional)
        let patient = try await records.patients.create(F.patient())
        let session = try await records.sessions.create(ClinicalSession(
            patientID: patient.id, date: F.now, notes: "n", chiefComplaint: "c", treatmentPlan: "t"))
        let diagnosis = try await records.diagnoses.create(
            Diagnosis(sessionID: session.id, snapshot: F.snapshot, clinicalNotes: "d", diagnosedAt: F.now))
        let signature = try await records.sessions.sign(session.id, version: session.version)
        let addendum = try await records.sessions.addAddendum(to: session.id, reason: "r", text: "x")
        return Fixture(database: database, records: records, session: session, diagnosis: diagnosis,
                       signature: signature, addendum: addendum)
    }

    static func expect(_ code: MedVaultError.Code, _ pool: VaultDatabase, _ sql: String, _ arguments: [VaultValue],
                       sourceLocation: SourceLocation = #_sourceLocation) async {
        await expectMedVaultError(code, sourceLocation: sourceLocation) {
            try await pool.write { db in try db.execute(sql, arguments) }
        }
    }

    @Test(arguments: ["notes", "chief_complaint", "treatment_plan"])
    func rawUpdateOfSignedSessionContentIsRefused(column: String) async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let id = f.session.id.vaultValue
        await Self.expect(.immutable, f.database.pool, "UPDATE clinical_session SET \(column) = ? WHERE id = ?",
                          [.text(F.marker), id])
        await Self.expect(.immutable, f.database.pool, "UPDATE clinical_session SET \(column) = NULL WHERE id = ?", [id])
        // Writing the same value is no change: other columns of the row stay writable.
        try await f.database.pool.write { db in
            try db.execute("UPDATE clinical_session SET \(column) = \(column), duration_minutes = 20 WHERE id = ?", [id])
        }
        #expect(try await f.records.sessions.get(f.session.id).durationMinutes == 20)
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .verified)
    }

    @Test func rawChangesOfDiagnosisNotesSignatureAndAddendaAreRefused() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        let session = f.session.id.vaultValue
        await Self.expect(.immutable, pool, "UPDATE diagnosis SET clinical_notes = ? WHERE id = ?",
                          [.text(F.marker), f.diagnosis.id.vaultValue])
        await Self.expect(.immutable, pool, "DELETE FROM clinical_session WHERE id = ?", [session])
        await Self.expect(.immutable, pool, "UPDATE session_signature SET content_sha256 = ?",
                          [.text(String(repeating: "0", count: 64))])
        await Self.expect(.immutable, pool, "UPDATE session_signature SET signed_at = signed_at + 1", [])
        await Self.expect(.immutable, pool, "DELETE FROM session_signature", [])
        await Self.expect(.immutable, pool, "UPDATE session_addendum SET text = ?", [.text(F.marker)])
        await Self.expect(.immutable, pool, "UPDATE session_addendum SET position = position + 10", [])
        await Self.expect(.immutable, pool, "DELETE FROM session_addendum", [])
        await Self.expect(.immutable, pool, "DELETE FROM signing_policy", [])
        let entry = try await f.records.sessions.entry(f.session.id)
        #expect(entry.signature == f.signature)
        #expect(entry.addenda == [f.addendum])
        #expect(entry.diagnoses == [f.diagnosis])
        #expect(entry.signatureCheck == .verified)
    }

    @Test func rawCompletionOfAnUnsignedSessionIsRefusedWhenRequired() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        let patient = f.session.patientID
        let other = try await f.records.sessions.create(ClinicalSession(patientID: patient, date: F.now))
        try await f.records.sessions.setSignatureRequiredForCompletion(true)
        await Self.expect(.validation, pool, "UPDATE clinical_session SET status = 'completed' WHERE id = ?",
                          [other.id.vaultValue])
        #expect(try await f.records.sessions.get(other.id).status == .scheduled)
        try await pool.write { db in
            try db.execute("UPDATE clinical_session SET status = 'completed' WHERE id = ?", [f.session.id.vaultValue])
        }
        #expect(try await f.records.sessions.get(f.session.id).status == .completed)
    }

    @Test func aDiagnosisInsertedIntoASignedSessionByRawSQLFailsVerification() async throws {
        // No INSERT trigger guards this (they cost an encrypted statement journal per
        // insert): the signature's digest catches it instead.
        let f = try await Self.fixture()
        defer { Task { await f.database.close() } }
        let extra = Diagnosis(sessionID: f.session.id, snapshot: F.otherSnapshot, clinicalNotes: "x",
                              diagnosedAt: F.now)
        var stamped = extra
        stamped.createdAt = F.now
        stamped.updatedAt = F.now
        stamped.version = 1
        try await f.database.pool.write { db in
            try db.execute("""
                INSERT INTO diagnosis (id, session_id, code, title, uri, release_version, diagnosis_type,
                    diagnosed_at, created_at, updated_at, version, clinical_notes)
                VALUES (?, ?, '6B00', 't', 'u', '2024-01', 'primary', 0, 0, 0, 1, 'x')
                """, [extra.id.vaultValue, f.session.id.vaultValue])
        }
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .mismatch)
    }
}
