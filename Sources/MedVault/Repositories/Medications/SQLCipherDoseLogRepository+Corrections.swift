import Foundation
import MedVaultCore

extension SQLCipherDoseLogRepository {
    /// Corrects a log and adjusts the inventory, keeping the previous value in
    /// `dose_log_revision`, in one transaction.
    ///
    /// Checks, in order: the log exists (`notFound`), the correction is valid
    /// (`validation`), the version is the stored one (`conflict`).
    @discardableResult
    public func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) async throws -> DoseLogReceipt {
        let clock = self.clock
        return try await pool.write { db in
            try Self.correct(id, with: correction, expectedVersion: expectedVersion, clock: clock, in: db)
        }
    }

    /// Voids a log: gives back its stock, moves it to `dose_log_revision` and frees its
    /// dose, in one transaction.
    @discardableResult
    public func void(_ id: UUID, reason: String?, expectedVersion: Int64) async throws -> DoseLogReceipt {
        let clock = self.clock
        return try await pool.write { db in
            try Self.void(id, reason: reason, expectedVersion: expectedVersion, clock: clock, in: db)
        }
    }

    /// The previous values of a log, oldest first.
    public func history(of id: UUID) async throws -> [DoseLogRevision] {
        try await pool.read { db in try Self.history(of: id, in: db) }
    }

    /// Every revision of a medication's logs, oldest first.
    public func history(medicationID: UUID) async throws -> [DoseLogRevision] {
        try await pool.read { db in try Self.history(medicationID: medicationID, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // Run by the methods above and by `SQLCipherTransactionalDoseLogRepository`.

    static func correct(
        _ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64, clock: RecordClock,
        in db: DatabaseConnection
    ) throws -> DoseLogReceipt {
        let current = try get(id, in: db)
        let (medication, rowID) = try SQLCipherMedicationStore.fetchMedication(current.medicationID, db)
        let now = clock.now()
        let next = try MedicationRecordRule.corrected(current, with: correction, expectedVersion: expectedVersion,
                                                      of: medication, now: now)
        let revision = MedicationRecordRule.revision(of: current, kind: .correction, reason: correction.reason, now: now)
        try db.execute(DoseLogRevisionRow.insert,
                       DoseLogRevisionRow.insertArguments(revision, patientID: medication.patientID))
        try db.execute(DoseLogRow.updateCorrected, DoseLogRow.correctedArguments(next))
        let balance = MedicationRecordRule.needsBalance(medication, replacing: current, with: next)
            ? try MedicationStockStore.balance(of: medication, db) : nil
        let (changed, shortfall) = MedicationRecordRule.adjusting(medication, replacing: current, with: next,
                                                                  balanceAfter: balance)
        try writeInventory(changed, replacing: medication, rowID: rowID, db)
        // The medication record does not change: its stock is derived (MedicationStockLedger).
        try db.changeLog.append([revision.change, next.change(.update)])
        return DoseLogReceipt(log: next, medication: changed, shortfall: shortfall)
    }

    static func void(
        _ id: UUID, reason: String?, expectedVersion: Int64, clock: RecordClock, in db: DatabaseConnection
    ) throws -> DoseLogReceipt {
        let current = try get(id, in: db)
        let (medication, rowID) = try SQLCipherMedicationStore.fetchMedication(current.medicationID, db)
        try MedicationRecordRule.checkVoid(current, reason: reason, expectedVersion: expectedVersion)
        let now = clock.now()
        let revision = MedicationRecordRule.revision(of: current, kind: .void, reason: reason, now: now)
        try db.execute(DoseLogRevisionRow.insert,
                       DoseLogRevisionRow.insertArguments(revision, patientID: medication.patientID))
        try db.execute("DELETE FROM dose_log WHERE id = ?", [id.vaultValue])
        let balance = MedicationRecordRule.needsBalance(medication, replacing: current, with: nil)
            ? try MedicationStockStore.balance(of: medication, db) : nil
        let (changed, shortfall) = MedicationRecordRule.adjusting(medication, replacing: current, with: nil,
                                                                  balanceAfter: balance)
        try writeInventory(changed, replacing: medication, rowID: rowID, db)
        // The voided log leaves `dose_log` (its last version is the entry's): a delete.
        try db.changeLog.append([revision.change, current.change(.delete)])
        return DoseLogReceipt(log: current, medication: changed, shortfall: shortfall)
    }

    static func history(of id: UUID, in db: DatabaseConnection) throws -> [DoseLogRevision] {
        try db.fetchAll(DoseLogRevisionRow.selectByLog, [id.vaultValue], DoseLogRevisionRow.decode)
    }

    static func history(medicationID: UUID, in db: DatabaseConnection) throws -> [DoseLogRevision] {
        try db.fetchAll(DoseLogRevisionRow.selectByMedication, [medicationID.vaultValue], DoseLogRevisionRow.decode)
    }

    /// Writes the cached stock of `changed` when the rule changed it.
    private static func writeInventory(
        _ changed: Medication, replacing medication: Medication, rowID: Int64, _ db: DatabaseConnection
    ) throws {
        guard changed.inventory != medication.inventory else { return }
        try MedicationStockStore.writeCache(changed, rowID: rowID, db)
    }
}
