import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// An update assigns a column an index or a trigger watches only when its value
/// changes (`RecordColumn.assigned`): SQLite rewrites the index entries of every
/// assigned column and runs its `UPDATE OF` triggers even for an unchanged value. A
/// trigger `AFTER UPDATE OF column` fires exactly when the statement assigns the column,
/// whatever the value, so the tests install one per watched column and read what fired.
/// (A diagnosis is updated through its view's `INSTEAD OF` trigger, which assigns every
/// amendable column of `diagnosis_row`: nothing to gain there.)
@Suite("Updates assign only the watched columns that change")
struct UpdateAssignmentTests {
    typealias F = ClinicalFixtures

    /// Installs a recording trigger on each of `columns` of `table`.
    static func watch(_ table: String, _ columns: [String], in pool: VaultDatabase) async throws {
        try await pool.write { db in
            try db.executeScript("CREATE TABLE IF NOT EXISTS assigned (name TEXT NOT NULL);")
            for column in columns {
                try db.executeScript("""
                    CREATE TRIGGER assigned_\(table)_\(column) AFTER UPDATE OF \(column) ON \(table)
                    BEGIN INSERT INTO assigned VALUES ('\(column)'); END;
                    """)
            }
        }
    }

    /// The columns assigned since the last call, in order.
    static func assigned(_ pool: VaultDatabase) async throws -> [String] {
        try await pool.write { db in
            let names = try db.fetchAll("SELECT name FROM assigned ORDER BY rowid") { $0.text(at: 0) }
            try db.execute("DELETE FROM assigned")
            return names
        }
    }

    @Test("A patient's sort key is assigned only when the names change it")
    func patientSortKey() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool)
        try await Self.watch("patient", ["sort_key"], in: database.pool)
        var patient = try await patients.create(F.patient("Ana", "Ruiz", phone: "600 111"))
        patient.phoneNumber = "600 222"
        patient.address = "Calle Mayor 1"
        patient = try await patients.update(patient)
        #expect(try await Self.assigned(database.pool) == [])
        #expect(try await patients.search("222").map(\.id) == [patient.id])

        patient.lastName = "Aaron"
        patient = try await patients.update(patient)
        #expect(try await Self.assigned(database.pool) == ["sort_key"])
        #expect(try await patients.search("aaron").map(\.id) == [patient.id])
        #expect(try await patients.get(patient.id) == patient)
    }

    @Test("A session's date, status and clinical text are assigned only when they change, the three texts together")
    func sessionColumns() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool)
        let sessions = SQLCipherClinicalSessionRepository(pool: database.pool)
        let patient = try await patients.create(F.patient())
        var session = try await sessions.create(ClinicalSession(
            patientID: patient.id, date: F.now, durationMinutes: 50, status: .scheduled, notes: "Primera visita"))
        try await Self.watch("clinical_session", ["date_ms", "status", "chief_complaint", "notes", "treatment_plan"],
                             in: database.pool)

        session.durationMinutes = 45
        session = try await sessions.update(session)
        #expect(try await Self.assigned(database.pool) == [])

        session.notes = "Primera visita: insomnio"
        session = try await sessions.update(session)
        #expect(try await Self.assigned(database.pool).sorted() == ["chief_complaint", "notes", "treatment_plan"])
        #expect(try await sessions.searchNotes("insomnio", patientID: nil, after: nil, limit: 10).sessions.map(\.id)
                == [session.id])

        session.date = F.now.addingTimeInterval(3_600)
        session = try await sessions.update(session)
        #expect(try await Self.assigned(database.pool) == ["date_ms"])

        session.status = .completed
        session = try await sessions.update(session)
        #expect(try await Self.assigned(database.pool) == ["status"])
        #expect(try await sessions.get(session.id) == session)
    }

    @Test("A canonically equivalent spelling is a change: the update stores its bytes, and values compare as SQLite compares them")
    func equivalentSpellingIsAChange() async throws {
        let composed = "Jos\u{E9}", decomposed = "Jose\u{301}"
        #expect(composed == decomposed)  // Swift's String equality: canonical equivalence
        #expect(VaultValue.text(composed) != .text(decomposed))
        #expect(Set([VaultValue.text(composed), .text(decomposed), .text(composed)]).count == 2)
        #expect(SyncColumnValue.text(composed) != .text(decomposed))
        #expect(SyncColumnValue.text(composed) == .text(composed))

        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patient = try await SQLCipherPatientRepository(pool: database.pool).create(F.patient())
        let sessions = SQLCipherClinicalSessionRepository(pool: database.pool)
        var session = try await sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: composed))
        session.notes = decomposed
        session = try await sessions.update(session)
        let id = session.id
        let stored = try await database.pool.read { db in
            try db.fetchOne("SELECT hex(notes) FROM clinical_session WHERE id = ?", [id.vaultValue]) { $0.text(at: 0) }
        }
        #expect(stored == "4A6F7365CC81")
    }
}
