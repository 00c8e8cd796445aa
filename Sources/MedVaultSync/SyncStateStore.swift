import Foundation
import MedVault
import MedVaultCore
import MedVaultSyncWire

/// The SQL of the engine's own tables (migration "sync state", see `SyncStateSchema`
/// in MedVault): credentials and cursors, the outbox, record clocks and conflicts.
/// Every function runs inside the caller's transaction.
enum SyncStateStore {
    struct State {
        var credentials: SyncCredentials?
        var sealedThrough: Int64
        var pulledThrough: Int64
    }

    /// A record's clock: the HLC stamp and the device that wrote the version held.
    struct Clock: Hashable, Comparable {
        var timestamp: Int64
        var deviceID: UUID

        /// Last writer wins: the higher stamp, then the bytewise higher device id.
        static func < (lhs: Clock, rhs: Clock) -> Bool {
            if lhs.timestamp != rhs.timestamp { return lhs.timestamp < rhs.timestamp }
            let l = withUnsafeBytes(of: lhs.deviceID.uuid) { Array($0) }
            let r = withUnsafeBytes(of: rhs.deviceID.uuid) { Array($0) }
            return l.lexicographicallyPrecedes(r)
        }
    }

    static func state(_ db: DatabaseConnection) throws -> State {
        let row = try db.fetchOne(
            "SELECT vault_id, device_id, device_token, sealed_through, pulled_through FROM sync_state WHERE singleton = 1"
        ) { row -> State in
            var credentials: SyncCredentials?
            if let vault: UUID = try row[0], let device: UUID = try row[1], let token: String = try row[2] {
                credentials = SyncCredentials(vaultID: vault, deviceID: device, deviceToken: token)
            }
            return State(credentials: credentials, sealedThrough: row.int64(at: 3), pulledThrough: row.int64(at: 4))
        }
        return row ?? State(credentials: nil, sealedThrough: 0, pulledThrough: 0)
    }

    static func saveCredentials(_ credentials: SyncCredentials, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET vault_id = ?, device_id = ?, device_token = ? WHERE singleton = 1",
                       [credentials.vaultID.vaultValue, credentials.deviceID.vaultValue, .text(credentials.deviceToken)])
        try SyncDeviceSequences.forgetFormerSelves(current: credentials.deviceID, db)
    }

    static func setSealedThrough(_ sequence: Int64, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET sealed_through = ? WHERE singleton = 1", [.integer(sequence)])
    }

    /// The last change-log sequence of the seal run in progress; 0 when none is
    /// (``PendingChangeSealer``, `SyncSealPlan`).
    static func sealingThrough(_ db: DatabaseConnection) throws -> Int64 {
        try db.fetchOne("SELECT sealing_through FROM sync_state WHERE singleton = 1") { row in row.int64(at: 0) } ?? 0
    }

    static func setSealingThrough(_ sequence: Int64, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET sealing_through = ? WHERE singleton = 1", [.integer(sequence)])
    }

    /// The keyring generation and digest last published or adopted (0 and `nil` before).
    static func keyringMark(_ db: DatabaseConnection) throws -> (generation: Int64, sha256: Data?) {
        try db.fetchOne("SELECT keyring_generation, keyring_sha256 FROM sync_state WHERE singleton = 1") { row in
            (row.int64(at: 0), row.isNull(at: 1) ? nil : row.blob(at: 1))
        } ?? (0, nil)
    }

    static func setKeyringMark(generation: Int64, sha256: Data, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET keyring_generation = ?, keyring_sha256 = ? WHERE singleton = 1",
                       [.integer(generation), .blob(sha256)])
    }

    static func setPulledThrough(_ sequence: Int64, _ db: DatabaseConnection) throws {
        try ensureRow(db)
        try db.execute("UPDATE sync_state SET pulled_through = ? WHERE singleton = 1", [.integer(sequence)])
    }

    private static func ensureRow(_ db: DatabaseConnection) throws {
        try db.execute("INSERT OR IGNORE INTO sync_state (singleton) VALUES (1)")
    }

    // MARK: - Outbox

    /// Appends `envelopes` to the outbox, in order (their positions follow it).
    static func enqueue(_ envelopes: [SyncEnvelopeRow], _ db: DatabaseConnection) throws {
        try enqueueStatement.execute(envelopes, db) { envelope in
            [envelope.id.vaultValue, .blob(envelope.recordKey), .blob(envelope.ciphertext), .integer(Int64(envelope.epoch))]
        }
    }

    private static let enqueueStatement = MultiRowStatement(
        "INSERT INTO sync_outbox (envelope_id, record_key, ciphertext, epoch) VALUES ", row: "(?, ?, ?, ?)")

    struct SyncEnvelopeRow: Sendable {
        var position: Int64 = 0
        var id: UUID
        var recordKey: Data
        var ciphertext: Data
        var epoch: UInt32 = 0
    }

    static func outbox(limit: Int, _ db: DatabaseConnection) throws -> [SyncEnvelopeRow] {
        try db.fetchAll("SELECT position, envelope_id, record_key, ciphertext, epoch FROM sync_outbox ORDER BY position LIMIT ?",
                        [.integer(Int64(limit))]) { row in
            SyncEnvelopeRow(position: row.int64(at: 0), id: try row[1], recordKey: row.blob(at: 2), ciphertext: row.blob(at: 3),
                            epoch: UInt32(clamping: row.int64(at: 4)))
        }
    }

    /// The outbox rows after position `after` sealed in another epoch than `epoch`, at most
    /// `limit`, in push order.
    static func outbox(after: Int64, notOfEpoch epoch: UInt32, limit: Int, _ db: DatabaseConnection) throws
        -> [SyncEnvelopeRow] {
        try db.fetchAll("""
            SELECT position, envelope_id, record_key, ciphertext, epoch FROM sync_outbox WHERE position > ? AND epoch <> ?
            ORDER BY position LIMIT ?
            """, [.integer(after), .integer(Int64(epoch)), .integer(Int64(limit))]) { row in
            SyncEnvelopeRow(position: row.int64(at: 0), id: try row[1], recordKey: row.blob(at: 2), ciphertext: row.blob(at: 3),
                            epoch: UInt32(clamping: row.int64(at: 4)))
        }
    }

    /// An outbox row ready to push.
    struct OutboxEnvelope: Sendable {
        let position: Int64
        let envelope: SyncEnvelope
    }

    /// The oldest outbox envelopes after `position`, at most `limit`, whose push body (the
    /// JSON of `SyncPushRequest`, as `SyncWireJSON` writes it) stays within
    /// `maximumBodyBytes`; at least one when any is left.
    static func outbox(after position: Int64 = 0, limit: Int, maximumBodyBytes: Int,
                       _ db: DatabaseConnection) throws -> [OutboxEnvelope] {
        // `{"envelopes":[` + the envelopes joined by `,` + `]}`, and the push's signature:
        // its entries (48 bytes an envelope, in base64) and 2 KiB for the rest.
        var bodyBytes = 16 + 2_048
        var found: [OutboxEnvelope] = []
        try db.forEachRow("""
            SELECT position, envelope_id, record_key, ciphertext, epoch FROM sync_outbox
            WHERE position > ? ORDER BY position LIMIT ?
            """, [.integer(position), .integer(Int64(limit))]) { row in
            let envelope = try MedVaultError.fromWire {
                try SyncEnvelope(id: try row[1], recordKey: row.blob(at: 2), ciphertext: row.blob(at: 3),
                                 epoch: UInt32(clamping: row.int64(at: 4)))
            }
            let size = envelope.wireJSONLength + (found.isEmpty ? 0 : 1) + 64
            guard found.isEmpty || bodyBytes + size <= maximumBodyBytes else { return false }
            bodyBytes += size
            found.append(OutboxEnvelope(position: row.int64(at: 0), envelope: envelope))
            return true
        }
        return found
    }

    /// Replaces an outbox row's envelope (re-sealed in a new epoch) in place.
    static func replaceInOutbox(_ row: SyncEnvelopeRow, id: UUID, ciphertext: Data, epoch: UInt32,
                                _ db: DatabaseConnection) throws {
        try db.execute("UPDATE sync_outbox SET envelope_id = ?, ciphertext = ?, epoch = ? WHERE position = ? AND envelope_id = ?",
                       [id.vaultValue, .blob(ciphertext), .integer(Int64(epoch)), .integer(row.position), row.id.vaultValue])
    }

    /// Removes the acknowledged envelopes: by position *and* id, never a range. Positions
    /// are never given twice since migration "sync outbox without an id index"
    /// (`AUTOINCREMENT`; before it they were reused once the outbox emptied, and a late
    /// acknowledgement could have removed a newer envelope at one of their positions);
    /// the id is still checked.
    static func removeFromOutbox(_ acknowledged: [OutboxEnvelope], _ db: DatabaseConnection) throws {
        try removeStatement.execute(acknowledged, db) { row in [.integer(row.position), row.envelope.id.vaultValue] }
    }

    /// Each term a rowid lookup (SQLite's OR optimisation; `MultiRowStatementTests`
    /// checks the plan).
    static let removeStatement = MultiRowStatement("DELETE FROM sync_outbox WHERE ",
                                                   row: "(position = ? AND envelope_id = ?)", separator: " OR ")

    // MARK: - Record clocks

    static func clock(_ table: VaultTable, _ id: UUID, _ db: DatabaseConnection) throws -> Clock? {
        try db.fetchOne("SELECT hlc, device_id FROM sync_record_clock WHERE table_name = ? AND record_id = ?",
                        [.text(table.rawValue), id.vaultValue]) { row in
            Clock(timestamp: row.int64(at: 0), deviceID: try row[1])
        }
    }

    /// The clocks held for `ids` of `table` (absent: never synced here), one indexed
    /// lookup per 64 ids.
    static func clocks(_ table: VaultTable, _ ids: [UUID], _ db: DatabaseConnection) throws -> [UUID: Clock] {
        var clocks: [UUID: Clock] = [:]
        let sql = "SELECT record_id, hlc, device_id FROM sync_record_clock WHERE table_name = ? AND record_id IN (\(SyncRecordStore.inList))"
        for values in SyncRecordStore.inListArguments(ids) {
            try db.forEachRow(sql, [.text(table.rawValue)] + values) { row in
                clocks[try row[0]] = Clock(timestamp: row.int64(at: 1), deviceID: try row[2])
                return true
            }
        }
        return clocks
    }

    /// Sets several records' clocks with multi-row statements (up to 64 rows each).
    static func setClocks(_ clocks: [(clock: Clock, table: VaultTable, id: UUID)], _ db: DatabaseConnection) throws {
        try setClocksStatement.execute(clocks, db) { item in
            [.text(item.table.rawValue), item.id.vaultValue, .integer(item.clock.timestamp), item.clock.deviceID.vaultValue]
        }
    }

    private static let setClocksStatement = MultiRowStatement(
        "INSERT OR REPLACE INTO sync_record_clock (table_name, record_id, hlc, device_id) VALUES ", row: "(?, ?, ?, ?)")

    static func setClock(_ clock: Clock, _ table: VaultTable, _ id: UUID, _ db: DatabaseConnection) throws {
        try db.execute("INSERT OR REPLACE INTO sync_record_clock (table_name, record_id, hlc, device_id) VALUES (?, ?, ?, ?)",
                       [.text(table.rawValue), id.vaultValue, .integer(clock.timestamp), clock.deviceID.vaultValue])
    }

    // MARK: - Conflicts

    /// Lists a conflict once: a second detection of the same losing version is ignored.
    ///
    /// - Returns: Whether it was new.
    static func addConflict(kind: SyncConflict.Kind, table: VaultTable, id: UUID, loser: Clock, loserIsLocal: Bool,
                            loserState: Data?, winner: Clock, now: Date, _ db: DatabaseConnection) throws -> Bool {
        try db.execute("""
            INSERT OR IGNORE INTO sync_conflict (id, kind, table_name, record_id, loser_hlc, loser_device, loser_is_local,
                loser_state, winner_hlc, winner_device, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [UUID().vaultValue, .text(kind.rawValue), .text(table.rawValue), id.vaultValue, .integer(loser.timestamp),
                  loser.deviceID.vaultValue, .integer(loserIsLocal ? 1 : 0), loserState.map(VaultValue.blob) ?? .null,
                  .integer(winner.timestamp), winner.deviceID.vaultValue, now.vaultValue])
        return db.changedRowCount == 1
    }

    static let conflictColumns = """
        id, kind, table_name, record_id, loser_is_local, loser_hlc, loser_device, winner_hlc, detected_at, loser_state
        """

    static func conflicts(id: UUID? = nil, _ db: DatabaseConnection) throws -> [(SyncConflict, Data?)] {
        let filter = id == nil ? "" : " AND id = ?"
        return try db.fetchAll(
            "SELECT \(conflictColumns) FROM sync_conflict WHERE resolved_at IS NULL\(filter) ORDER BY detected_at, id",
            id.map { [$0.vaultValue] } ?? []
        ) { row in
            (SyncConflict(id: try row[0], kind: SyncConflict.Kind(rawValue: row.text(at: 1)) ?? .concurrentChange,
                          table: VaultTable(row.text(at: 2)), recordID: try row[3],
                          loser: row.int64(at: 4) == 1 ? .local : .remote,
                          losingTimestamp: HybridTimestamp(rawValue: row.int64(at: 5)), losingDeviceID: try row[6],
                          winningTimestamp: HybridTimestamp(rawValue: row.int64(at: 7)), detectedAt: try row[8]),
             row.isNull(at: 9) ? nil : row.blob(at: 9))
        }
    }

    static func markResolved(_ id: UUID, now: Date, _ db: DatabaseConnection) throws {
        try db.execute("UPDATE sync_conflict SET resolved_at = ? WHERE id = ?", [now.vaultValue, id.vaultValue])
    }
}
