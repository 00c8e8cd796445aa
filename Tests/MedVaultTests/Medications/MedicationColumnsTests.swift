import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// The row mappings' column enums against the schema, and the fault seam kept out
/// of production stores.
@Suite("Medication row columns and test seams")
struct MedicationColumnsTests {
    func tableColumns(_ table: String, _ db: TemporaryMedicationDatabase) async throws -> Set<String> {
        Set(try await db.pool.read { conn in
            try conn.fetchAll("PRAGMA table_info(\(table))", []) { try $0[1] as String }
        })
    }

    @Test func everyStoredColumnIsMappedByName() async throws {
        let db = try await TemporaryMedicationDatabase(clock: .system)
        // `rowid` is each table's INTEGER PRIMARY KEY alias: SQLite assigns it.
        #expect(Set(MedicationRow.Column.inserted.map(\.name)) == (try await tableColumns("medication", db)).subtracting(["rowid"]))
        #expect(Set(MedicationScheduleRow.Column.allCases.map(\.name))
                == (try await tableColumns("medication_schedule", db)).subtracting(["rowid"]))
        #expect(Set(DoseLogRow.Column.allCases.map(\.name) + ["patient_id"])
                == (try await tableColumns("dose_log", db)).subtracting(["rowid"]))
        #expect(Set(DoseLogRevisionRow.Column.allCases.map(\.name) + ["patient_id"])
                == (try await tableColumns("dose_log_revision", db)).subtracting(["rowid"]))
        #expect(Set(MedicationRefillRow.Column.allCases.map(\.name) + ["patient_id"])
                == (try await tableColumns("medication_refill", db)).subtracting(["rowid"]))
    }

    @Test func theSelectListIsGeneratedInPositionOrder() {
        let names = MedicationRow.columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for column in MedicationRow.Column.allCases {
            #expect(names[Int(column.rawValue)] == column.name)
        }
        #expect(MedicationRow.qualifiedColumns.hasPrefix("m.id, m.patient_id, m.name,"))
        #expect(MedicationRow.update.hasPrefix("UPDATE medication SET name = ?, generic_name = ?"))
        #expect(MedicationRow.update.hasSuffix("updated_at = ?, version = ? WHERE rowid = ?"))
    }

    @Test func aProductionStoreHasNoFaultSeam() async throws {
        let db = try await TemporaryMedicationDatabase(clock: .system)
        let store = SQLCipherMedicationStore(pool: db.pool)
        #expect(store.faults == nil)
        store._failNextWrite(at: .afterDoseLogWrite)  // no switch: nothing is armed
        let medication = try await store.create(MT.medication(
            patientID: try await db.registerPatient(), inventory: MedicationInventory(current: 3)))
        let receipt = try await store.doseLogs.create(DoseLog(
            medicationID: medication.id, scheduledAt: .now, status: .taken, takenAt: .now))
        #expect(receipt.medication.inventory?.current == 2)
    }
}
