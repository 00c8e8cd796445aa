import Foundation
import MedVaultCore

/// The SQLCipher `MedicationRefillRepository`: refills in the `medication_refill`
/// table, from ``SQLCipherMedicationStore/refills``. Storing a refill increases the
/// medication's inventory in the same transaction.
public struct SQLCipherMedicationRefillRepository: MedicationRefillRepository {
    /// The database.
    let pool: VaultDatabase
    /// Where "now" comes from.
    let clock: RecordClock

    /// Stores a refill and increases the inventory, in one transaction.
    ///
    /// Checks, in order: the medication exists (`notFound`, field `medicationID`), the
    /// refill is valid (`validation`), its identifier is new (`duplicate`).
    @discardableResult
    public func create(_ refill: MedicationRefill) async throws -> MedicationRefillReceipt {
        let clock = self.clock
        return try await pool.write { db in try Self.create(refill, clock: clock, in: db) }
    }

    /// The refill with this identifier.
    public func get(_ id: UUID) async throws -> MedicationRefill {
        try await pool.read { db in try Self.get(id, in: db) }
    }

    /// A medication's refills, oldest first.
    public func list(medicationID: UUID) async throws -> [MedicationRefill] {
        try await pool.read { db in try Self.list(medicationID: medicationID, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // Run by the methods above and by `SQLCipherTransactionalMedicationRefillRepository`.

    static func create(_ refill: MedicationRefill, clock: RecordClock, in db: DatabaseConnection) throws -> MedicationRefillReceipt {
        let (medication, rowID) = try SQLCipherMedicationStore.fetchMedication(refill.medicationID, db,
                                                                              field: "medicationID")
        let now = clock.now()
        let stored = try MedicationRecordRule.created(refill, now: now)
        if try db.fetchOne("SELECT 1 FROM medication_refill WHERE id = ?", [stored.id.vaultValue], { _ in true }) == true {
            throw MedVaultError.duplicateRecord
        }
        let (changed, adjustment, versioned) = MedicationRecordRule.refilled(
            medication, with: stored, balanceBefore: try MedicationStockStore.balance(of: medication, db), now: now)
        try db.execute(MedicationRefillRow.insert, MedicationRefillRow.insertArguments(stored, patientID: medication.patientID))
        var entries = [stored.change(.insert)]
        if let adjustment {
            entries.append(try MedicationStockStore.insertAdjustment(adjustment, of: medication, at: now, db))
        }
        if versioned {
            // A new inventory or expiration date is a change of the medication record.
            try db.execute(MedicationRow.updateRefilledInventory,
                           MedicationRow.arguments(MedicationRow.refillColumns, of: changed, rowID: rowID))
            entries.append(changed.change(.update))
        } else {
            try MedicationStockStore.writeCache(changed, rowID: rowID, db)
        }
        try db.changeLog.append(entries)
        return MedicationRefillReceipt(refill: stored, medication: changed)
    }

    static func get(_ id: UUID, in db: DatabaseConnection) throws -> MedicationRefill {
        guard let refill = try db.fetchOne(MedicationRefillRow.selectByID, [id.vaultValue], MedicationRefillRow.decode) else {
            throw MedVaultError.recordNotFound()
        }
        return refill
    }

    static func list(medicationID: UUID, in db: DatabaseConnection) throws -> [MedicationRefill] {
        try db.fetchAll(MedicationRefillRow.selectByMedication, [medicationID.vaultValue], MedicationRefillRow.decode)
    }
}

/// The SQLCipher `TransactionalMedicationRefillRepository` of a unit of work.
struct SQLCipherTransactionalMedicationRefillRepository: TransactionalMedicationRefillRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherMedicationRefillRepository

    func create(_ refill: MedicationRefill) throws -> MedicationRefillReceipt {
        try unit.write { db in try SQL.create(refill, clock: unit.clock, in: db) }
    }

    func get(_ id: UUID) throws -> MedicationRefill {
        try unit.read { db in try SQL.get(id, in: db) }
    }

    func list(medicationID: UUID) throws -> [MedicationRefill] {
        try unit.read { db in try SQL.list(medicationID: medicationID, in: db) }
    }
}
