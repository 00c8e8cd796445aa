import Foundation
import MedVault
import MedVaultCore

/// Applies opened remote records inside one write transaction, with the conflict rules
/// of `docs/sync.md`:
///
/// - The receiver holds exactly the version the change replaced (its base), or never
///   heard of the record: the change is applied (fast-forward).
/// - Otherwise the changes were concurrent: the higher clock wins (hybrid logical clock,
///   then the device id bytewise), on every device alike; the losing version is listed
///   as a conflict, with its state, once.
/// - A change a medical-record rule refuses (signed content, a diagnosis snapshot,
///   deleting a patient or a completed session, altering a signature or an addendum) is
///   not applied and is listed as a `refused` conflict; the batch goes on.
enum RemoteChangeApplier {
    struct Outcome {
        var applied = 0
        var conflicts = 0
    }

    /// A record decoded and checked, ready to apply.
    struct Prepared {
        let record: SyncRecord
        let table: VaultTable
        let state: SyncRowState?
        let remote: SyncStateStore.Clock
        let base: SyncStateStore.Clock?
    }

    /// Decodes and checks `record` without touching storage.
    ///
    /// - Throws: `invalidArgument` for a table this build does not sync; `corrupted`
    ///   for a state that does not decode or a clock out of range.
    static func prepare(_ record: SyncRecord) throws -> Prepared {
        let table = VaultTable(record.table)
        guard VaultTable.recordTables.contains(table) else {
            throw MedVaultError(.invalidArgument, field: "table", reason: "a synced record of a table this build does not sync")
        }
        var state: SyncRowState?
        do {
            state = try record.state.map { try SyncRecordDecoding.rowState($0) }
            // An attachment arrives incomplete (invisible) and is completed when its
            // chunks are all here (`SyncAttachmentStore`): a new row takes the
            // column's default 0, an existing row keeps its own flag.
            if table == .attachment { state?.columns.removeValue(forKey: "is_complete") }
        } catch {
            throw MedVaultError(.corrupted, reason: "a sync envelope's record state is not readable")
        }
        guard let stamp = Int64(exactly: record.timestamp),
              record.baseTimestamp.map({ Int64(exactly: $0) != nil }) ?? true else {
            throw MedVaultError(.corrupted, reason: "a sync envelope's clock is out of range")
        }
        let base = record.baseTimestamp.flatMap { baseStamp in
            record.baseDeviceID.map { SyncStateStore.Clock(timestamp: Int64(baseStamp), deviceID: $0) }
        }
        return Prepared(record: record, table: table, state: state,
                        remote: SyncStateStore.Clock(timestamp: stamp, deviceID: record.deviceID), base: base)
    }

    /// Applies one prepared record, reading its clock and row state first.
    ///
    /// A concurrent change whose clock is past `clockHorizon` (its device's clock ran
    /// ahead of this one's by more than the allowed skew) does not win: the stored version
    /// stays and the remote one is listed as a ``SyncConflict/Kind/clockAhead`` conflict —
    /// unless it is stamped exactly one tick after its base, as every device stamps an edit
    /// of a record whose clock is already ahead.
    static func apply(_ prepared: Prepared, localDevice: UUID, now: Date, clockHorizon: Int64? = nil, columns: [String],
                      _ db: DatabaseConnection, into outcome: inout Outcome) throws {
        let record = prepared.record
        let table = prepared.table
        let state = prepared.state
        let remote = prepared.remote
        let base = prepared.base
        let current = try SyncStateStore.clock(table, record.recordID, db)
        outcome.applied += 1
        if current == remote { return }
        let operation = ChangeOperation(rawValue: record.operation)
        if current == nil || current == base {
            try write(state, record: record, table: table, operation: operation, remote: remote,
                      refusedAgainst: current ?? remote, now: now, columns: columns, db, &outcome)
            return
        }
        guard let current else { return }
        // Ahead: past the horizon and further than one tick after its own base. A change
        // stamped right after a base that is itself ahead (an honest edit of a record that a
        // clock ahead touched earlier: the sealer stamps base + 1) is not the clock ahead.
        if current < remote, let clockHorizon, remote.timestamp > clockHorizon,
           !Self.stampedAfterHeldBase(remote: remote, base: base, current: current) {
            if try SyncStateStore.addConflict(kind: .clockAhead, table: table, id: record.recordID, loser: remote,
                                              loserIsLocal: false, loserState: record.state, winner: current, now: now, db) {
                outcome.conflicts += 1
            }
        } else if current < remote {
            let localState = try SyncRecordStore.read(table, id: record.recordID, columns: columns, db)
            if try write(state, record: record, table: table, operation: operation, remote: remote,
                         refusedAgainst: current, now: now, columns: columns, db, &outcome) {
                if try SyncStateStore.addConflict(kind: .concurrentChange, table: table, id: record.recordID,
                                                  loser: current, loserIsLocal: current.deviceID == localDevice,
                                                  loserState: try encode(localState), winner: remote, now: now, db) {
                    outcome.conflicts += 1
                }
            }
        } else if try SyncStateStore.addConflict(kind: .concurrentChange, table: table, id: record.recordID,
                                                 loser: remote, loserIsLocal: false, loserState: record.state,
                                                 winner: current, now: now, db) {
            outcome.conflicts += 1
        }
    }

    /// Whether `remote` is stamped one tick after a base no later than the clock held
    /// here: an edit of a record whose clock a device ahead raised earlier, and which this
    /// device took too. A base this device never took (a version it listed as ahead)
    /// earns no exemption.
    static func stampedAfterHeldBase(remote: SyncStateStore.Clock, base: SyncStateStore.Clock?,
                                     current: SyncStateStore.Clock) -> Bool {
        guard let base, base.timestamp <= current.timestamp else { return false }
        return remote.timestamp == base.timestamp &+ 1
    }

    /// Writes the remote state and its clock; a rule's refusal is listed instead.
    ///
    /// - Returns: Whether the state was written.
    @discardableResult
    private static func write(_ state: SyncRowState?, record: SyncRecord, table: VaultTable, operation: ChangeOperation,
                              remote: SyncStateStore.Clock, refusedAgainst winner: SyncStateStore.Clock, now: Date,
                              columns: [String], _ db: DatabaseConnection, _ outcome: inout Outcome) throws -> Bool {
        do {
            try SyncRecordStore.write(state, table: table, id: record.recordID, operation: operation, columns: columns,
                                      origin: record.deviceID, db)
        } catch let error as MedVaultError where refusals.contains(error.code) {
            if try SyncStateStore.addConflict(kind: .refused, table: table, id: record.recordID, loser: remote,
                                              loserIsLocal: false, loserState: record.state, winner: winner, now: now, db) {
                outcome.conflicts += 1
            }
            return false
        }
        try SyncStateStore.setClock(remote, table, record.recordID, db)
        return true
    }

    /// The errors that mean "this record may not be written so": a rule, a constraint,
    /// a missing parent (`notFound`), a column this schema lacks. Storage errors (disk full, locked) fail the batch.
    static let refusals: Set<MedVaultError.Code> = [.immutable, .conflict, .duplicate, .validation, .invalidArgument, .notFound]

    static func encode(_ state: SyncRowState?) throws -> Data? {
        try state?.json()
    }
}
