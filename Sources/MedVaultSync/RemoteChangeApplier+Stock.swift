import Foundation
import MedVault
import MedVaultCore

// Medication stock after applying remote records (issue #16, docs/sync.md "Inventory").
//
// A medication's stock is derived from records that merge by union — dose logs,
// their revisions, refills and stock adjustments (`MedicationStockLedger`) — and the
// medication row only caches it. A batch that touched any of those, or a medication
// row (which carries its sender's cache), recomputes the cache of each medication
// involved from this device's ledger, in the same transaction, without a change-log
// entry: nothing is sealed or echoed, and every device computes the same stock from
// the same records.
extension RemoteChangeApplier {
    /// The tables whose records change a medication's stock or carry its cache.
    static let stockTables: Set<VaultTable> = [
        .medication, .doseLog, .doseLogRevision, .medicationRefill, .medicationStockAdjustment,
    ]

    /// The medications whose stock the records may change, read before applying (a
    /// voided log's delete has no state: its medication is read from the stored row).
    ///
    /// - Returns: Every medication involved, and those whose own row is among the records.
    static func stockMedications(
        of records: some Sequence<Prepared>, _ db: DatabaseConnection
    ) throws -> (all: Set<UUID>, rows: Set<UUID>) {
        var all = Set<UUID>()
        var rows = Set<UUID>()
        for record in records where stockTables.contains(record.table) {
            if record.table == .medication {
                all.insert(record.record.recordID)
                rows.insert(record.record.recordID)
            } else if let id = try medicationID(of: record.table, id: record.record.recordID, state: record.state, db) {
                all.insert(id)
            }
        }
        return (all, rows)
    }

    /// The medication of a stock record: from its state, else from its stored row.
    static func medicationID(of table: VaultTable, id: UUID, state: SyncRowState?,
                             _ db: DatabaseConnection) throws -> UUID? {
        if case .blob(let bytes)? = state?.columns["medication_id"] { return uuid(bytes) }
        guard table == .doseLog else { return nil }
        return try db.fetchOne("SELECT medication_id FROM dose_log WHERE id = ?", [id.vaultValue]) { row in
            uuid(row.blob(at: 0))
        } ?? nil
    }

    private static func uuid(_ bytes: Data) -> UUID? {
        guard bytes.count == 16 else { return nil }
        return bytes.withUnsafeBytes { raw in UUID(uuid: raw.loadUnaligned(as: uuid_t.self)) }
    }
}
