import Foundation
import MedVault
import MedVaultCore

// Applying a pulled page as a batch (issue #16, the clone benchmark Y).
//
// The rules are those of `apply(_:localDevice:now:columns:_:into:)`, record by record
// in page order; only the work around them is shared across the page:
// - each table's columns are read once, not twice per record;
// - the clocks of all the page's records, and which of the unclocked ones have a row,
//   are read up front, 64 ids per statement;
// - a record this device has never seen (no clock, no row, not earlier in the page) —
//   every record of a clone — is inserted directly: the same checks and `INSERT` as
//   a single apply, but its change-log entry and its clock are appended with the
//   consecutive new records' in multi-row statements. They are flushed before any
//   record that needs the per-record path, so the log's order is the page's order and
//   that path reads every clock written before it.
// No savepoint is taken: a refused record fails its single `INSERT` statement, which
// changes nothing, and is listed as a refused conflict as before.
extension RemoteChangeApplier {
    /// A page's envelope, opened.
    struct PageItem: Sendable {
        let sequence: Int64
        let envelopeID: UUID
        let record: SyncRecord
        /// The device the server says pushed the envelope (`nil`: not known).
        var pusher: UUID? = nil
    }

    private struct RecordKey: Hashable {
        let table: VaultTable
        let id: UUID
    }

    /// Applies the page's records not sealed by `localDevice`, in order, inside the
    /// caller's write transaction.
    ///
    /// - Returns: The counts, and the records that could not be applied (an unknown
    ///   table, an unreadable state or clock), as envelope errors.
    /// - Throws: Storage errors: the caller's transaction then rolls the page back.
    ///
    /// - Parameter clockHorizon: The highest clock a remote change may win a conflict with
    ///   (see ``SyncEngine/maximumClockSkew``); `nil`: no bound.
    static func applyPage(_ items: [PageItem], localDevice: UUID, now: Date, clockHorizon: Int64? = nil,
                          _ db: DatabaseConnection) throws -> (Outcome, [SyncEnvelopeError]) {
        var outcome = Outcome()
        var errors: [SyncEnvelopeError] = []
        func refuse(_ item: PageItem, _ error: MedVaultError) {
            errors.append(SyncEnvelopeError(sequence: item.sequence, envelopeID: item.envelopeID,
                                            code: error.code, reason: "the record cannot be applied"))
        }
        let remoteItems = items.filter { $0.record.deviceID != localDevice }
        let prepared: [Result<Prepared, MedVaultError>] = remoteItems.map { item in
            do { return .success(try prepare(item.record)) } catch let error as MedVaultError { return .failure(error) }
            catch { return .failure(MedVaultError(.corrupted, reason: "a sync envelope's record is not readable")) }
        }

        // What this device holds of the page's records, read up front.
        var idsByTable: [VaultTable: [UUID]] = [:]
        for case .success(let record) in prepared { idsByTable[record.table, default: []].append(record.record.recordID) }
        var clocks: [VaultTable: [UUID: SyncStateStore.Clock]] = [:]
        var existing: [VaultTable: Set<UUID>] = [:]
        var columns: [VaultTable: [String]] = [:]
        for (table, ids) in idsByTable {
            let held = try SyncStateStore.clocks(table, ids, db)
            clocks[table] = held
            existing[table] = try SyncRecordStore.existingIDs(table, among: ids.filter { held[$0] == nil }, db)
            columns[table] = try SyncRecordStore.columns(of: table, db)
        }

        // Read before applying: a voided log's medication is only in its stored row.
        var preparedRecords: [Prepared] = []
        for case .success(let record) in prepared { preparedRecords.append(record) }
        let stock = try stockMedications(of: preparedRecords, db)

        var seen = Set<RecordKey>()
        var pendingLog: [(table: VaultTable, id: UUID, version: Int64?, origin: UUID)] = []
        var pendingClocks: [(clock: SyncStateStore.Clock, table: VaultTable, id: UUID)] = []
        func flush() throws {
            guard !pendingLog.isEmpty || !pendingClocks.isEmpty else { return }
            try SyncRecordStore.logInserts(pendingLog, db)
            try SyncStateStore.setClocks(pendingClocks, db)
            pendingLog.removeAll(keepingCapacity: true)
            pendingClocks.removeAll(keepingCapacity: true)
        }

        /// After an attachment's metadata was applied, refused or deleted: complete it
        /// from its staged chunks, or drop them.
        func settleAttachment(_ item: PageItem, _ id: UUID) throws {
            if try SyncAttachmentStore.metadataApplied(id, db) == .corrupted {
                refuse(item, Self.attachmentMismatch)
            }
        }

        for (item, preparation) in zip(remoteItems, prepared) {
            if item.record.table == AttachmentChunkRecord.table {
                try flush()
                if try stageChunk(item, db, refuse: refuse) { outcome.applied += 1 }
                continue
            }
            let record: Prepared
            switch preparation {
            case .failure(let error) where error.code == .corrupted || error.code == .invalidArgument:
                refuse(item, error)
                continue
            case .failure(let error):
                throw error
            case .success(let value):
                record = value
            }
            let id = record.record.recordID
            let tableColumns = columns[record.table] ?? []
            let firstInPage = seen.insert(RecordKey(table: record.table, id: id)).inserted
            if firstInPage, clocks[record.table]?[id] == nil, existing[record.table]?.contains(id) == false,
               let state = record.state {
                // New to this device: the fast-forward of `apply` for an absent record.
                outcome.applied += 1
                do {
                    try SyncRecordStore.insertNew(state, table: record.table, id: id, columns: tableColumns, db)
                    pendingLog.append((record.table, id, state.version, record.record.deviceID))
                    pendingClocks.append((record.remote, record.table, id))
                } catch let error as MedVaultError where refusals.contains(error.code) {
                    if try SyncStateStore.addConflict(kind: .refused, table: record.table, id: id, loser: record.remote,
                                                      loserIsLocal: false, loserState: record.record.state,
                                                      winner: record.remote, now: now, db) {
                        outcome.conflicts += 1
                    }
                }
                if record.table == .attachment { try settleAttachment(item, id) }
                continue
            }
            try flush()
            do {
                try apply(record, localDevice: localDevice, now: now, clockHorizon: clockHorizon, columns: tableColumns,
                          db, into: &outcome)
            } catch let error as MedVaultError where error.code == .corrupted || error.code == .invalidArgument {
                refuse(item, error)
            }
            if record.table == .attachment { try settleAttachment(item, id) }
        }
        try flush()
        try MedicationStockStore.recomputeCaches(stock.all, rowsApplied: stock.rows, db)
        return (outcome, errors)
    }

    /// The error listed when an attachment's chunks are all here but do not match its
    /// recorded size and SHA-256.
    static let attachmentMismatch = MedVaultError(
        .corrupted, reason: "an attachment's received content does not match its recorded digest")

    /// Stages one received attachment chunk (completing its attachment when it can);
    /// an unreadable chunk record or a completion that fails its digest is listed.
    ///
    /// - Returns: Whether the chunk was applied (staged, or ignored as sent again);
    ///   `false` for an unreadable one.
    private static func stageChunk(_ item: PageItem, _ db: DatabaseConnection,
                                   refuse: (PageItem, MedVaultError) -> Void) throws -> Bool {
        guard let state = item.record.state, let chunk = AttachmentChunkRecord(payload: state) else {
            refuse(item, MedVaultError(.corrupted, reason: "a sync envelope's attachment chunk is not readable"))
            return false
        }
        do {
            if try SyncAttachmentStore.stage(chunk.attachmentID, seq: chunk.seq, data: chunk.data,
                                             origin: item.record.deviceID, db) == .corrupted {
                refuse(item, attachmentMismatch)
            }
            return true
        } catch let error as MedVaultError where error.code == .validation {
            refuse(item, error)
            return false
        }
    }
}
