import Foundation
import MedVaultCore

/// The SQLCipher `DoseLogRepository`: logs in the `dose_log` table, from
/// ``SQLCipherMedicationStore/doseLogs``. Creating a log of a taken or late dose
/// decrements the medication's inventory in the same transaction.
public struct SQLCipherDoseLogRepository: DoseLogRepository {
    /// The database.
    let pool: VaultDatabase
    /// Where "now" comes from.
    let clock: RecordClock
    /// The test seam of the transactionality tests; `nil` outside them.
    let faults: MedicationFaultSwitch?

    static let selectByID = "SELECT \(DoseLogRow.columns) FROM dose_log WHERE id = ?"
    static let selectByMedication = """
        SELECT \(DoseLogRow.columns) FROM dose_log
        WHERE medication_id = ? AND scheduled_at >= ? AND scheduled_at < ?
        ORDER BY scheduled_at
        """
    static let selectByPatient = """
        SELECT \(DoseLogRow.columns) FROM dose_log
        WHERE patient_id = ? AND scheduled_at >= ? AND scheduled_at < ?
        ORDER BY scheduled_at, medication_id
        """

    /// Stores a dose log and, for a taken or late dose, decrements the inventory, in
    /// one transaction.
    ///
    /// Checks, in order: the medication exists (`notFound`, field `medicationID`), the
    /// log is valid (`validation`), its identifier is new (`duplicate`), the
    /// medication has no log at this instant yet (`duplicate`).
    @discardableResult
    public func create(_ log: DoseLog) async throws -> DoseLogReceipt {
        let writer = DoseLogWriter(clock: clock, faults: faults)
        return try await pool.write { db in try writer.write([log], db)[0] }
    }

    /// Stores many logs in one transaction, in order, each as by ``create(_:)-(DoseLog)``:
    /// all are written or none is. Statements are prepared once per connection, and
    /// each medication is read once per batch.
    @discardableResult
    public func create(_ logs: [DoseLog]) async throws -> [DoseLogReceipt] {
        guard !logs.isEmpty else { return [] }
        let writer = DoseLogWriter(clock: clock, faults: faults)
        return try await pool.write(duration: .long) { db in try writer.write(logs, db) }
    }

    /// The dose log with this identifier.
    public func get(_ id: UUID) async throws -> DoseLog {
        try await pool.read { db in try Self.get(id, in: db) }
    }

    /// A medication's logs with `scheduledAt` in `range`, oldest first.
    public func list(medicationID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        try await pool.read { db in try Self.list(medicationID: medicationID, in: range, db) }
    }

    /// The logs of a patient's medications with `scheduledAt` in `range`, sorted by
    /// instant, then medication: one range scan of the `(patient_id, scheduled_at)` index.
    public func list(patientID: UUID, in range: Range<Date>) async throws -> [DoseLog] {
        try await pool.read { db in try Self.list(patientID: patientID, in: range, db) }
    }

    // MARK: - Reads on a connection
    //
    // Run by the methods above and by `SQLCipherTransactionalDoseLogRepository`;
    // the writes are `DoseLogWriter`'s.

    static func get(_ id: UUID, in db: DatabaseConnection) throws -> DoseLog {
        guard let log = try db.fetchOne(selectByID, [id.vaultValue], DoseLogRow.decode) else {
            throw MedVaultError.recordNotFound()
        }
        return log
    }

    static func list(medicationID: UUID, in range: Range<Date>, _ db: DatabaseConnection) throws -> [DoseLog] {
        try db.fetchAll(selectByMedication, rangeArguments(medicationID, range), DoseLogRow.decode)
    }

    static func list(patientID: UUID, in range: Range<Date>, _ db: DatabaseConnection) throws -> [DoseLog] {
        try db.fetchAll(selectByPatient, rangeArguments(patientID, range), DoseLogRow.decode)
    }

    /// The arguments of ``selectByMedication`` and ``selectByPatient``.
    static func rangeArguments(_ id: UUID, _ range: Range<Date>) -> [VaultValue] {
        [
            id.vaultValue,
            .integer(DoseLogRow.millisecondBound(range.lowerBound)),
            .integer(DoseLogRow.millisecondBound(range.upperBound)),
        ]
    }
}

/// Writes one dose log and its inventory change inside a caller's write transaction.
struct DoseLogWriter: Sendable {
    let clock: RecordClock
    let faults: MedicationFaultSwitch?

    /// Writes `logs` in order, each with its inventory change: the one path of the
    /// repository's `create` methods and of a unit of work's.
    ///
    /// Logs one `insert` entry per dose log. The medication's cached stock changes
    /// with it but the medication record does not (no new version, no entry): the
    /// stock is derived from the logs (`MedicationStockLedger`), so doses logged on two
    /// devices never make concurrent versions of the medication.
    func write(_ logs: [DoseLog], _ db: DatabaseConnection) throws -> [DoseLogReceipt] {
        var medications: [UUID: (medication: Medication, rowID: Int64)] = [:]
        var receipts: [DoseLogReceipt] = []
        receipts.reserveCapacity(logs.count)
        for log in logs {
            receipts.append(try write(log, db, medications: &medications).receipt)
        }
        try db.changeLog.append(receipts.map { $0.log.change(.insert) })
        return receipts
    }

    /// Writes `log`; `medications` caches the medications this transaction read or
    /// changed, so a batch reads each once and sees its own decrements.
    private func write(
        _ log: DoseLog, _ db: DatabaseConnection,
        medications: inout [UUID: (medication: Medication, rowID: Int64)]
    ) throws -> (receipt: DoseLogReceipt, consumedStock: Bool) {
        let cached: (medication: Medication, rowID: Int64)
        if let hit = medications[log.medicationID] {
            cached = hit
        } else {
            cached = try SQLCipherMedicationStore.fetchMedication(log.medicationID, db, field: "medicationID")
        }
        let now = clock.now()
        let stored = try MedicationRecordRule.created(log, of: cached.medication, now: now)
        try checkLimit(stored, of: cached.medication, db)
        do {
            try db.execute(DoseLogRow.insert, DoseLogRow.insertArguments(stored, patientID: cached.medication.patientID))
        } catch let error as MedVaultError where error.code == .duplicate {
            // Two UNIQUE constraints: the identifier, then the (medication, instant).
            // Probing only on failure keeps the usual path at one statement.
            let known = try db.fetchOne("SELECT 1 FROM dose_log WHERE id = ?", [stored.id.vaultValue]) { _ in true }
            throw known == true ? MedVaultError.duplicateRecord : MedVaultError.doseAlreadyLogged
        }

        if let faults, faults.fire(.afterDoseLogWrite) {
            throw MedVaultError(.storage, reason: "injected failure after the dose log write")
        }

        let receipt = MedicationRecordRule.applying(stored, to: cached.medication, now: now)
        let consumedStock = receipt.medication.inventory != cached.medication.inventory
        if consumedStock {
            try MedicationStockStore.writeCache(receipt.medication, rowID: cached.rowID, db)
        }
        medications[log.medicationID] = (receipt.medication, cached.rowID)
        return (receipt, consumedStock)
    }

    /// Refuses a taken dose over the medication's `maximumDosesPer24Hours`
    /// (`DoseLimit`), after the duplicate checks the insert would make, so that
    /// both stores report errors in the same order. Nothing is written either way.
    private func checkLimit(_ stored: DoseLog, of medication: Medication, _ db: DatabaseConnection) throws {
        guard let maximum = medication.maximumDosesPer24Hours, stored.consumesDose, let takenAt = stored.takenAt else {
            return
        }
        let window = Int64(DoseLimit.window * 1000)
        let t = takenAt.millisecondsSince1970
        let taken = try db.fetchAll(Self.selectTakenNear, [medication.id.vaultValue, .integer(t - window), .integer(t + window)]) {
            Date(millisecondsSince1970: $0.int64(at: 0))
        }
        do {
            try DoseLimit.check(adding: takenAt, to: taken, maximum: maximum)
        } catch {
            if try db.fetchOne("SELECT 1 FROM dose_log WHERE id = ?", [stored.id.vaultValue], { _ in true }) == true {
                throw MedVaultError.duplicateRecord
            }
            let dose: [VaultValue] = [stored.medicationID.vaultValue, stored.scheduledAt.vaultValue]
            if try db.fetchOne("SELECT 1 FROM dose_log WHERE medication_id = ? AND scheduled_at = ?", dose, { _ in true }) == true {
                throw MedVaultError.doseAlreadyLogged
            }
            throw error
        }
    }

    /// The taken instants of a medication's consuming logs strictly within a span.
    static let selectTakenNear = """
        SELECT taken_at FROM dose_log
        WHERE medication_id = ? AND status IN ('taken', 'late') AND taken_at > ? AND taken_at < ?
        """
}
