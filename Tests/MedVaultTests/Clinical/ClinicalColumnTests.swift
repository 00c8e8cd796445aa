import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The clinical column enums name real columns, in the tables' order, and rows can be
/// read by name.
@Suite("Clinical rows: named columns")
struct ClinicalColumnTests {
    static func tableColumns(_ table: String) async throws -> [String] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try await VaultDatabase.open(at: directory.file("c.db"), key: SecureBytes.random(count: 32),
                                               mode: .createIfMissing, migrator: MedVaultSchema.migrator)
        let names = try await pool.read { db in
            try db.fetchAll("PRAGMA table_info(\(table))") { row in try row["name"] as String }
        }
        await pool.close()
        return names
    }

    @Test("Each column enum lists its table's columns in the table's order")
    func enumsMatchTables() async throws {
        #expect(ClinicalRows.PatientColumn.allCases.map(\.name)
                == (try await Self.tableColumns("patient")).filter { $0 != "rowid" })
        #expect(ClinicalRows.SessionColumn.allCases.map(\.name) == (try await Self.tableColumns("clinical_session")))
        #expect(ClinicalRows.DiagnosisColumn.allCases.map(\.name) == (try await Self.tableColumns("diagnosis")))
        #expect(ClinicalRows.ProfessionalColumn.allCases.map(\.name)
                == (try await Self.tableColumns("professional")).filter { $0 != "singleton" })
        // The attachment's staging column is the repository's, not part of the value.
        #expect(ClinicalRows.AttachmentColumn.allCases.map(\.name)
                == (try await Self.tableColumns("attachment")).filter { $0 != "is_complete" })
    }

    @Test("Column names, lists, placeholders and assignments are derived from the cases")
    func sqlFragments() {
        typealias C = ClinicalRows.SessionColumn
        #expect(C.patientId.name == "patient_id")
        #expect(C.dateMs.rawValue == 2)
        #expect(C.selection.hasPrefix("id, patient_id, date_ms, type, duration_minutes, status"))
        #expect(C.selection(alias: "s").hasPrefix("s.id, s.patient_id"))
        #expect(C.placeholders == Array(repeating: "?", count: 12).joined(separator: ", "))
        #expect(C.assignments([.status, .notes]) == "status = ?, notes = ?")
        #expect(ClinicalRows.AttachmentColumn.sha256.name == "sha256")
    }

    @Test("Arguments follow the columns asked for, whatever their order")
    func argumentsFollowColumns() throws {
        var patient = ClinicalFixtures.patient("Ana", "Núñez", email: "ana@ex.com")
        patient.version = 7
        typealias C = ClinicalRows.PatientColumn
        #expect(C.arguments(patient, [.version, .email, .address]) == [.integer(7), .text("ana@ex.com"), .null])
        #expect(C.arguments(patient).count == C.allCases.count)
        #expect(C.arguments(patient)[Int(C.sortKey.rawValue)] == .text(patient.sortKey))
    }

    @Test("A row read by name: case-insensitive; a missing name is invalidArgument")
    func rowByName() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await StorageFixtures.openNotes(dir.file("n.db"), key: StorageFixtures.randomKey())
            try await StorageFixtures.insertNote(pool, 3, "tres")
            let read = try await pool.read { db in
                try db.fetchOne("SELECT body, n AS number FROM note") { row in
                    (try row["BODY"] as String, try row["number"] as Int64, row.index(ofColumn: "n"))
                }
            }
            #expect(read?.0 == "tres")
            #expect(read?.1 == 3)
            #expect(read?.2 == nil)
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await pool.read { db in try db.fetchOne("SELECT body FROM note") { try $0["missing"] as String } }
            }
            #expect(error?.code == .invalidArgument)
            await pool.close()
        }
    }
}
