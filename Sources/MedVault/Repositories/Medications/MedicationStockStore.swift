import Foundation
import MedVaultCore

/// The SQL side of `MedicationStockLedger`: the ledger's balance in one aggregate
/// query, stock adjustments, and the cached stock (`medication.inventory_current`)
/// recomputed after a sync applied remote records.
package enum MedicationStockStore {
    /// Σ adjustments, Σ refills and Σ taken amounts of one medication, as `TOTAL()`s
    /// (floating point, so hostile quantities cannot overflow the query; see
    /// `MedicationStockLedger.quantity(total:)`). Each sum is one index range scan.
    static let selectSums = """
        SELECT (SELECT TOTAL(delta) FROM medication_stock_adjustment WHERE medication_id = ?),
               (SELECT TOTAL(quantity) FROM medication_refill WHERE medication_id = ?),
               (SELECT TOTAL(COALESCE(amount, ?)) FROM dose_log
                WHERE medication_id = ? AND status IN ('taken', 'late'))
        """

    static let insertAdjustment = """
        INSERT INTO medication_stock_adjustment (id, medication_id, patient_id, delta, recorded_at, version)
        VALUES (?, ?, ?, ?, ?, 1)
        """

    static let selectDeclared = "SELECT inventory_declared FROM medication WHERE rowid = ?"

    static let updateCache = "UPDATE medication SET inventory_current = ? WHERE rowid = ?"

    static let updateCacheAndDeclared = """
        UPDATE medication SET inventory_current = ?, inventory_declared = ? WHERE rowid = ?
        """

    /// The ledger's balance of `medication`, as stored.
    static func balance(of medication: Medication, _ db: DatabaseConnection) throws -> MedicationQuantity {
        let id = medication.id.vaultValue
        let sums = try db.fetchOne(selectSums, [id, id, .integer(medication.dosage.amount.thousandths), id]) { row in
            (row.double(at: 0), row.double(at: 1), row.double(at: 2))
        }
        guard let sums else { return .zero }
        return MedicationStockLedger.balance(adjustments: MedicationStockLedger.quantity(total: sums.0),
                                             refills: MedicationStockLedger.quantity(total: sums.1),
                                             consumed: MedicationStockLedger.quantity(total: sums.2))
    }

    /// The stock the stored version of the medication at `rowID` was written with.
    static func declared(rowID: Int64, _ db: DatabaseConnection) throws -> MedicationQuantity? {
        try db.fetchOne(selectDeclared, [.integer(rowID)]) { row in
            row.isNull(at: 0) ? nil : MedicationQuantity(thousandths: row.int64(at: 0))
        } ?? nil
    }

    /// Inserts an adjustment of `medication`'s stock by `delta`.
    ///
    /// - Returns: Its change-log entry, for the caller's one append.
    static func insertAdjustment(
        _ delta: MedicationQuantity, of medication: Medication, at now: Date, _ db: DatabaseConnection
    ) throws -> ChangeRecord {
        let adjustment = MedicationStockAdjustment(medicationID: medication.id, delta: delta,
                                                   recordedAt: now.truncatedToMilliseconds)
        try db.execute(insertAdjustment, [
            adjustment.id.vaultValue, medication.id.vaultValue, medication.patientID.vaultValue,
            .integer(delta.thousandths), adjustment.recordedAt.vaultValue,
        ])
        return ChangeRecord(table: .medicationStockAdjustment, id: adjustment.id, operation: .insert, version: 1)
    }

    /// Writes the cached stock of the medication at `rowID`.
    static func writeCache(_ medication: Medication, rowID: Int64, _ db: DatabaseConnection) throws {
        guard let inventory = medication.inventory else { return }
        try db.execute(updateCache, [.integer(inventory.current.thousandths), .integer(rowID)])
    }

    /// The mark the migration "medication stock ledger" leaves when it seeded adjustments.
    static let seedsUnloggedKey = "stock ledger seeds unlogged"

    /// Appends the change-log entries of the adjustments the migration seeded (its SQL
    /// cannot append to the audit-chained log), once, so that sync carries them: a
    /// device that syncs after the upgrade would otherwise send a stocked medication's
    /// logs and refills without the adjustment that makes them add up to its stock.
    /// Called by the sync engine before it seals, in the same transaction.
    ///
    /// - Returns: How many entries were appended.
    @discardableResult
    package static func logSeeds(_ db: DatabaseConnection) throws -> Int {
        let marked = try db.fetchOne("SELECT 1 FROM medvault_metadata WHERE key = ?", [.text(seedsUnloggedKey)]) { _ in true }
        guard marked == true else { return 0 }
        // A seed's id is its medication's (the migration's deterministic choice).
        let ids = try db.fetchAll("SELECT id FROM medication_stock_adjustment WHERE id = medication_id ORDER BY rowid") {
            try UUID(row: $0, column: 0)
        }
        try db.changeLog.append(ids.map {
            ChangeRecord(table: .medicationStockAdjustment, id: $0, operation: .insert, version: 1)
        })
        try db.execute("DELETE FROM medvault_metadata WHERE key = ?", [.text(seedsUnloggedKey)])
        return ids.count
    }

    /// Recomputes the cached stock of each medication from its ledger, after a sync
    /// applied remote records: a remote medication row carries its sender's cache,
    /// and remote logs, revisions, refills and adjustments change the balance. Not
    /// change-logged (the cache is no record of its own), so never sealed or echoed.
    ///
    /// - Parameters:
    ///   - ids: The medications whose records the batch touched; unknown ones are skipped.
    ///   - rowsApplied: Those whose own row the batch wrote: their declared stock becomes
    ///     the recomputed one, the value this device's app reads for that version.
    package static func recomputeCaches(_ ids: some Sequence<UUID>, rowsApplied: Set<UUID>,
                                        _ db: DatabaseConnection) throws {
        for id in ids {
            guard let (medication, rowID) = try SQLCipherMedicationStore.findMedication(id, db),
                  let inventory = medication.inventory else { continue }
            let stock = MedicationStockLedger.stock(balance: try balance(of: medication, db))
            let value = VaultValue.integer(stock.thousandths)
            if rowsApplied.contains(id) {
                try db.execute(updateCacheAndDeclared, [value, value, .integer(rowID)])
            } else if stock != inventory.current {
                try db.execute(updateCache, [value, .integer(rowID)])
            }
        }
    }
}
