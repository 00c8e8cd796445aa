import Foundation

/// The in-memory ``MedicationRefillRepository``, from ``InMemoryMedicationStore/refills``.
public struct InMemoryMedicationRefillRepository: MedicationRefillRepository {
    let tables: InMemoryMedicationTables

    @discardableResult
    public func create(_ refill: MedicationRefill) async throws -> MedicationRefillReceipt {
        try await tables.createRefill(refill)
    }

    public func get(_ id: UUID) async throws -> MedicationRefill {
        try await tables.getRefill(id)
    }

    public func list(medicationID: UUID) async throws -> [MedicationRefill] {
        await tables.listRefills(medicationID: medicationID)
    }
}

/// The in-memory ``TransactionalMedicationRefillRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalMedicationRefillRepository: TransactionalMedicationRefillRepository {
    let tables: InMemoryMedicationTables
    let scope: TransactionScope

    func create(_ refill: MedicationRefill) throws -> MedicationRefillReceipt {
        try tables.inUnit(scope) { try $0.createRefill(refill) }
    }

    func get(_ id: UUID) throws -> MedicationRefill {
        try tables.inUnit(scope) { try $0.getRefill(id) }
    }

    func list(medicationID: UUID) throws -> [MedicationRefill] {
        try tables.inUnit(scope) { $0.listRefills(medicationID: medicationID) }
    }
}

extension InMemoryMedicationTables {
    func createRefill(_ refill: MedicationRefill) throws -> MedicationRefillReceipt {
        guard let medication = tables.medications[refill.medicationID] else {
            throw MedVaultError.recordNotFound("medicationID")
        }
        let now = clock.now()
        let stored = try MedicationRecordRule.created(refill, now: now)
        guard tables.refills[stored.id] == nil else { throw MedVaultError.duplicateRecord }
        let (changed, adjustment, versioned) = MedicationRecordRule.refilled(
            medication, with: stored, balanceBefore: tables.balance(of: medication), now: now)
        tables.refills[stored.id] = stored
        if let adjustment {
            tables.adjustments.append(MedicationStockAdjustment(medicationID: medication.id, delta: adjustment,
                                                                recordedAt: stored.createdAt))
        }
        tables.medications[changed.id] = changed
        if versioned { tables.declaredStock[changed.id] = changed.inventory?.current }
        return MedicationRefillReceipt(refill: stored, medication: changed)
    }

    func getRefill(_ id: UUID) throws -> MedicationRefill {
        guard let refill = tables.refills[id] else { throw MedVaultError.recordNotFound() }
        return refill
    }

    func listRefills(medicationID: UUID) -> [MedicationRefill] {
        tables.refills.values
            .filter { $0.medicationID == medicationID }
            .sorted { ($0.date, $0.createdAt, $0.id.uuidString) < ($1.date, $1.createdAt, $1.id.uuidString) }
    }
}
