import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// What migration 6 promises at the SQL level: revisions and refills are append-only
/// even against raw SQL, a void frees the dose's row, and no INSERT trigger slows bulk inserts.
@Suite("SQLCipher medication store: corrections and refills in SQL")
struct SQLCipherMedicationStockTests {
    static let now = MT.utc("2026-05-10T10:00:00Z")
    static let marker = "ZQX-STOCK-MARKER-7781"

    @Test func revisionsAndRefillsAreAppendOnlyAndAVoidFreesTheDoseRow() async throws {
        let db = try await TemporaryMedicationDatabase(clock: .fixed(Self.now))
        let medication = try await db.store.create(MT.medication(
            patientID: try await db.registerPatient(), inventory: MedicationInventory(current: 10)))
        let at = MT.utc("2026-05-01T08:00:00Z")
        let logged = try await db.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at, notes: Self.marker))
        try await db.store.doseLogs.correct(logged.log.id, with: DoseLogCorrection(
            status: .taken, takenAt: at, amount: 2, notes: Self.marker, reason: Self.marker), expectedVersion: 1)
        try await db.store.doseLogs.void(logged.log.id, reason: Self.marker, expectedVersion: 2)
        try await db.store.refills.create(MedicationRefill(medicationID: medication.id, quantity: 3,
                                                           date: MT.day("2026-05-02"), notes: Self.marker))

        #expect(try await db.count("SELECT count(*) FROM dose_log") == 0)
        #expect(try await db.count("SELECT count(*) FROM dose_log_revision WHERE patient_id = ?",
                                   [medication.patientID.vaultValue]) == 2)
        #expect(try await db.count("SELECT count(*) FROM medication_refill") == 1)
        #expect(try await db.count("SELECT inventory_current FROM medication") == 13_000)

        for sql in ["UPDATE dose_log_revision SET reason = NULL", "DELETE FROM dose_log_revision",
                    "UPDATE medication_refill SET quantity = 1", "DELETE FROM medication_refill"] {
            let error = await MT.error { try await db.pool.write { conn in try conn.execute(sql) } }
            #expect(error?.code == .immutable, "\(sql)")
            #expect(error.map { !"\($0)".contains(Self.marker) } == true)
        }
        #expect(try await db.count("SELECT count(*) FROM dose_log_revision") == 2)
        #expect(try await db.count("SELECT count(*) FROM medication_refill") == 1)

        // No INSERT trigger on the new tables (docs/storage.md: statement journals).
        #expect(try await db.count("""
            SELECT count(*) FROM sqlite_master WHERE type = 'trigger'
            AND tbl_name IN ('dose_log_revision', 'medication_refill', 'dose_log') AND sql LIKE '%INSERT ON%'
            """) == 0)
    }
}
