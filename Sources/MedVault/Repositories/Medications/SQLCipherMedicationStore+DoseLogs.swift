import Foundation
import MedVaultCore

extension SQLCipherMedicationStore {
    static let selectHistory = """
        SELECT \(DoseLogRow.columns) FROM dose_log
        WHERE medication_id = ? AND scheduled_at >= ? AND scheduled_at < ?
        ORDER BY scheduled_at
        """
    static let selectPatientLogs = """
        SELECT \(DoseLogRow.columns) FROM dose_log
        WHERE patient_id = ? AND scheduled_at >= ? AND scheduled_at < ?
        ORDER BY scheduled_at, medication_id
        """
    static let updateInventory = """
        UPDATE medication SET inventory_current = ?, updated_at = ?, version = ? WHERE rowid = ?
        """

    /// Stores a dose log and, for a taken or late dose, decrements the inventory, in
    /// one transaction.
    ///
    /// Checks, in order: the medication exists (`notFound`), the log is valid
    /// (`validation`), its identifier is new (`duplicate`), the medication has no log
    /// at this instant yet (`duplicate`).
    public func log(_ log: DoseLog) async throws -> DoseLogReceipt {
        let writer = DoseLogWriter(clock: clock, faults: faults)
        return try await pool.write { db in
            var medications: [UUID: (medication: Medication, rowID: Int64)] = [:]
            return try writer.write(log, db, medications: &medications)
        }
    }

    /// Stores many logs in one transaction, in order, each as by ``log(_:)``: all are
    /// written or none is. Statements are prepared once per connection, and each
    /// medication is read once per batch.
    public func log(batch logs: [DoseLog]) async throws -> [DoseLogReceipt] {
        guard !logs.isEmpty else { return [] }
        let writer = DoseLogWriter(clock: clock, faults: faults)
        return try await pool.write(duration: .long) { db in
            var medications: [UUID: (medication: Medication, rowID: Int64)] = [:]
            var receipts: [DoseLogReceipt] = []
            receipts.reserveCapacity(logs.count)
            for log in logs {
                receipts.append(try writer.write(log, db, medications: &medications))
            }
            return receipts
        }
    }

    /// A medication's logs with `scheduledAt` in `range`, oldest first.
    public func history(forMedication medicationID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        let arguments: [DatabaseValue] = [
            medicationID.databaseValue,
            .integer(DoseLogRow.millisecondBound(range.lowerBound)),
            .integer(DoseLogRow.millisecondBound(range.upperBound)),
        ]
        return try await pool.read { db in
            try db.fetchAll(Self.selectHistory, arguments, DoseLogRow.decode)
        }
    }

    /// The logs of a patient's medications with `scheduledAt` in `range`, sorted by
    /// instant, then medication: one range scan of the `(patient_id, scheduled_at)` index.
    public func logs(forPatient patientID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        let arguments: [DatabaseValue] = [
            patientID.databaseValue,
            .integer(DoseLogRow.millisecondBound(range.lowerBound)),
            .integer(DoseLogRow.millisecondBound(range.upperBound)),
        ]
        return try await pool.read { db in
            try db.fetchAll(Self.selectPatientLogs, arguments, DoseLogRow.decode)
        }
    }
}

/// Writes one dose log and its inventory change inside a caller's write transaction.
struct DoseLogWriter: Sendable {
    let clock: RecordClock
    let faults: MedicationFaultSwitch

    /// Writes `log`; `medications` caches the medications this transaction read or
    /// changed, so a batch reads each once and sees its own decrements.
    func write(
        _ log: DoseLog, _ db: DatabaseConnection,
        medications: inout [UUID: (medication: Medication, rowID: Int64)]
    ) throws -> DoseLogReceipt {
        let cached: (medication: Medication, rowID: Int64)
        if let hit = medications[log.medicationID] {
            cached = hit
        } else if let fetched = try SQLCipherMedicationStore.fetchMedication(log.medicationID, db) {
            cached = fetched
        } else {
            throw SQLCipherMedicationStore.noMedication
        }
        try MedicationValidation.validate(log)

        var stored = log
        stored.scheduledAt = log.scheduledAt.truncatedToMilliseconds
        stored.takenAt = log.takenAt?.truncatedToMilliseconds
        let now = clock.now()
        stored.createdAt = now
        stored.updatedAt = now
        stored.version = 1
        do {
            try db.execute(DoseLogRow.insert, DoseLogRow.insertArguments(stored, patientID: cached.medication.patientID))
        } catch let error as MedVaultError where error.code == .duplicate {
            // Two UNIQUE constraints: the identifier, then the (medication, instant).
            // Probing only on failure keeps the usual path at one statement.
            let known = try db.fetchOne("SELECT 1 FROM dose_log WHERE id = ?", [stored.id.databaseValue]) { _ in true }
            if known == true {
                throw MedVaultError(.duplicate, reason: "a dose log with this identifier exists", sqliteCode: error.sqliteCode)
            }
            throw MedVaultError(.duplicate, reason: "this dose is already logged", sqliteCode: error.sqliteCode)
        }

        if faults.fire(.afterDoseLogWrite) {
            throw MedVaultError(.storage, reason: "injected failure after the dose log write")
        }

        var medication = cached.medication
        var shortfall = MedicationQuantity.zero
        if stored.consumesDose, var inventory = medication.inventory {
            let remaining = inventory.current - medication.dosage.amount
            shortfall = remaining < .zero ? .zero - remaining : .zero
            inventory.current = max(remaining, .zero)
            medication.inventory = inventory
            medication.updatedAt = now
            medication.version += 1
            try db.execute(SQLCipherMedicationStore.updateInventory, [
                .integer(inventory.current.thousandths), medication.updatedAt.databaseValue,
                .integer(medication.version), .integer(cached.rowID),
            ])
        }
        medications[log.medicationID] = (medication, cached.rowID)
        return DoseLogReceipt(log: stored, medication: medication, shortfall: shortfall)
    }
}
