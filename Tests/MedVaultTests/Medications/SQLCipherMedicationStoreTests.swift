import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// What the SQLCipher medication store promises at the SQL level, beyond the shared
/// conformance suite: checked with raw SELECTs that bypass the store.
@Suite("SQLCipher medication store")
struct SQLCipherMedicationStoreTests {
    static let now = MT.utc("2026-05-10T10:00:00Z")
    static let marker = "ZQX-SQL-MARKER-4412"

    func database() async throws -> TemporaryMedicationDatabase {
        try await TemporaryMedicationDatabase(clock: .fixed(Self.now))
    }

    func taken(_ medication: Medication, hour: Int = 8) -> DoseLog {
        let at = MT.utc("2026-05-01T00:00:00Z").addingTimeInterval(Double(hour) * 3600)
        return DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at)
    }

    func inventoryRow(_ db: TemporaryMedicationDatabase, _ id: UUID) async throws -> (current: Int64, version: Int64)? {
        try await db.pool.read { conn in
            try conn.fetchOne("SELECT inventory_current, version FROM medication WHERE id = ?", [id.vaultValue]) {
                ($0.int64(at: 0), $0.int64(at: 1))
            }
        }
    }

    @Test func theLogAndTheInventoryChangeAreOneTransaction() async throws {
        let db = try await database()
        let medication = try await db.store.create(MT.medication(
            patientID: try await db.registerPatient(), amount: 1.5, inventory: MedicationInventory(current: 10)))

        db.store._failNextWrite(at: .afterDoseLogWrite)
        let failure = await MT.error { _ = try await db.store.doseLogs.create(taken(medication)) }
        #expect(failure?.code == .storage)
        #expect(try await db.count("SELECT count(*) FROM dose_log") == 0)
        let untouched = try #require(try await inventoryRow(db, medication.id))
        #expect(untouched.current == 10_000 && untouched.version == 1)

        // A batch that fails on its second log leaves the first log and its decrement out too.
        db.store._failNextWrite(at: .afterDoseLogWrite)
        _ = try await db.store.doseLogs.create([])  // an empty batch reaches no fault point
        let batch = [taken(medication, hour: 8), taken(medication, hour: 8)]
        let duplicate = await MT.error { _ = try await db.store.doseLogs.create(batch) }
        #expect(duplicate?.code == .storage)   // the armed fault fires on the first log
        let again = await MT.error { _ = try await db.store.doseLogs.create(batch) }
        #expect(again?.code == .duplicate)
        #expect(try await db.count("SELECT count(*) FROM dose_log") == 0)
        #expect(try await inventoryRow(db, medication.id)?.current == 10_000)

        // Success writes both, with the patient copied onto the log.
        let receipt = try await db.store.doseLogs.create(taken(medication))
        #expect(try await db.count("SELECT count(*) FROM dose_log WHERE patient_id = ?",
                                   [medication.patientID.vaultValue]) == 1)
        let changed = try #require(try await inventoryRow(db, medication.id))
        // The stock is derived (MedicationStockLedger): the cached stock moves, the version stays.
        #expect(changed.current == 8_500 && changed.version == 1)
        #expect(receipt.medication.version == 1)
    }

    @Test func aMedicationForAnUnknownPatientIsRefusedByTheForeignKey() async throws {
        let db = try await database()
        let draft = MT.medication(patientID: UUID(), name: Self.marker, genericName: Self.marker)
        let error = await MT.error { _ = try await db.store.create(draft) }
        #expect(error?.code == .notFound)
        #expect(error?.field == "patientID")
        #expect(error?.sqliteCode == SQLiteResult.constraintForeignKey)
        #expect(error.map { !String(describing: $0).contains(Self.marker) } ?? false)
        #expect(try await db.count("SELECT count(*) FROM medication") == 0)
        #expect(try await db.count("SELECT count(*) FROM medication_search") == 0)

        // The same medication is accepted once the patient exists.
        _ = try await db.registerPatient(id: draft.patientID)
        #expect(try await db.store.create(draft).version == 1)
    }

    @Test func theSearchIndexFollowsUpdatesInTheSameTransaction() async throws {
        let db = try await database()
        let patientID = try await db.registerPatient()
        var medication = try await db.store.create(MT.medication(
            patientID: patientID, name: "Ibuprofeno", inventory: MedicationInventory(current: 5)))
        #expect(try await db.store.search("ibupro", patientID: patientID).map(\.id) == [medication.id])

        medication.name = "Paracetamol"
        medication.genericName = "Acetaminofén"
        medication = try await db.store.update(medication)
        #expect(try await db.store.search("ibupro", patientID: nil).isEmpty)
        #expect(try await db.store.search("parac", patientID: patientID).map(\.id) == [medication.id])
        #expect(try await db.store.search("acetaminofen", patientID: patientID).map(\.id) == [medication.id])
        #expect(try await db.count("SELECT count(*) FROM medication_search WHERE medication_search MATCH 'ibuprofeno'") == 0)
        #expect(try await db.count("SELECT count(*) FROM medication_search") == 1)

        // An inventory decrement does not touch the index; a failed update leaves it as it was.
        _ = try await db.store.doseLogs.create(taken(medication))
        #expect(try await db.store.search("paracetamol", patientID: patientID).count == 1)
        // A dose no longer makes a new version: the copy before the rename is the stale one.
        var stale = medication
        stale.version -= 1
        stale.name = "Omeprazol"
        #expect(await MT.error { _ = try await db.store.update(stale) }?.code == .conflict)
        #expect(try await db.store.search("omepra", patientID: nil).isEmpty)
        #expect(try await db.store.search("paracetamol", patientID: nil).count == 1)
    }

    @Test func sqlLevelErrorsNeverCarryAFieldValue() async throws {
        let db = try await database()
        let patientID = try await db.registerPatient()
        let medication = try await db.store.create(MT.medication(patientID: patientID, name: Self.marker))
        var errors: [MedVaultError] = []
        func collect(_ body: () async throws -> Void) async {
            if let error = await MT.error(body) { errors.append(error) }
        }
        let marker = Self.marker
        // Constraints and triggers reached with raw SQL, values bound.
        await collect {
            try await db.pool.write { conn in
                try conn.execute("UPDATE medication SET patient_id = ? WHERE id = ?",
                                 [UUID().vaultValue, medication.id.vaultValue])
            }
        }
        await collect {
            try await db.pool.write { conn in
                try conn.execute("UPDATE medication SET inventory_current = -1, inventory_minimum = 0, name = ? WHERE id = ?",
                                 [.text(marker), medication.id.vaultValue])
            }
        }
        await collect {
            try await db.pool.write { conn in
                try conn.execute("UPDATE medication SET dosage_amount = 0, instructions = ? WHERE id = ?",
                                 [.text(marker), medication.id.vaultValue])
            }
        }
        let log = DoseLog(medicationID: medication.id, scheduledAt: Self.now, status: .missed, notes: marker)
        _ = try await db.store.doseLogs.create(log)
        await collect { _ = try await db.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: Self.now,
                                                           status: .skipped, skipReason: SkipReason(marker))) }
        await collect { _ = try await db.store.create(MT.medication(patientID: UUID(), name: marker)) }

        #expect(errors.map(\.code) == [.validation, .validation, .validation, .duplicate, .notFound])
        #expect(errors[0].reason == "a medication cannot move to another patient")
        for error in errors {
            #expect(!String(describing: error).contains(marker))
        }
        #expect(try await db.store.find(medication.id) == medication)
    }

    @Test func hotQueriesAreIndexDriven() async throws {
        let db = try await database()
        let queries: [(String, Int)] = [
            (MedicationRow.selectByID, 1),
            (MedicationRow.selectActiveByPatient, 1),
            (SQLCipherMedicationScheduleRepository.selectByMedication, 1),
            (SQLCipherMedicationScheduleRepository.selectByPatient, 1),
            (SQLCipherDoseLogRepository.selectByMedication, 3),
            (SQLCipherDoseLogRepository.selectByPatient, 3),
        ]
        for (sql, parameterCount) in queries {
            let arguments = [VaultValue](repeating: .integer(0), count: parameterCount)
            let plan = try await db.pool.read { conn in
                try conn.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(at: 3) }
            }
            #expect(!plan.isEmpty)
            for step in plan {
                #expect(!step.hasPrefix("SCAN TABLE") || step.contains("USING"), "\(step) in \(sql)")
                #expect(!step.contains("TEMP B-TREE") || sql.contains("JOIN"), "\(step) in \(sql)")
            }
        }
    }

    @Test func aMalformedStoredRowReadsAsCorrupted() async throws {
        let db = try await database()
        let patientID = try await db.registerPatient()
        let medication = try await db.store.create(MT.medication(patientID: patientID))
        let damage: [String] = [
            "UPDATE medication SET frequency_kind = 'fortnightly' WHERE id = ?",
            "UPDATE medication SET frequency_times = '8:00' WHERE id = ?",
            "UPDATE medication SET frequency_times = '1440' WHERE id = ?",
            "UPDATE medication SET frequency_time_labels = '[\"a\",\"b\"]' WHERE id = ?",
            "UPDATE medication SET frequency_kind = 'timesPerDay', frequency_count = NULL WHERE id = ?",
            "UPDATE medication SET id = x'00' WHERE id = ?",
        ]
        for sql in damage {
            try await db.pool.write { conn in
                try conn.execute("PRAGMA ignore_check_constraints = ON")
                try conn.execute(sql, [medication.id.vaultValue])
                try conn.execute("PRAGMA ignore_check_constraints = OFF")
            }
            let read = await MT.error { _ = try await db.store.list(patientID: patientID, filter: .all) }
            #expect(read?.code == .corrupted, "\(sql)")
            try await db.pool.write { conn in
                try conn.execute("DELETE FROM medication")
                try conn.execute(MedicationRow.insert, MedicationRow.insertArguments(medication))
            }
        }
    }
}
