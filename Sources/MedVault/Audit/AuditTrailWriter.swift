import Foundation
import MedVaultCore
import MedVaultKeys

/// Appends entries to `medvault_audit` on the writer connection, inside the transaction of
/// what they record. Called by ``ChangeLogWriter`` for every change it logs (so every
/// repository write, unit of work and import is audited through that one call site) and
/// by the `Vault` facade for events (``append(action:table:id:now:device:)``).
///
/// The writer caches the chain's head `(seq, mac)` and the actor for one transaction:
/// at its first entry it reads them (one statement), so an entry written meanwhile by
/// another process, or before a reopen, is chained after, never forked. A rolled-back
/// savepoint (group commit, a unit-of-work step) calls ``invalidate()``: its entries are
/// gone, and the next append reads the head again instead of chaining onto an entry
/// that was never committed.
///
/// Not `Sendable`: it belongs to its connection.
final class AuditTrailWriter {
    private unowned let connection: DatabaseConnection
    /// Where the audit key comes from; `nil` (no vault) means nothing is audited.
    var keys: AuditKeyBox?
    /// Set from `DatabaseConfiguration._auditTrailDisabled` (benchmarks only).
    var isDisabled = false
    private var isLoaded = false
    private var headSequence: Int64 = 0
    private var headMAC = Data()
    private var actor: VaultValue = .null
    /// The message buffer every entry's MAC reuses.
    private var message = AuditChain.Message()

    init(connection: DatabaseConnection) {
        self.connection = connection
    }

    /// The next append reads the head again (a transaction began, or a savepoint rolled back).
    func invalidate() {
        isLoaded = false
    }

    /// Appends one entry per change, in order, with multi-row `INSERT`s of up to 64 rows.
    /// A change's `origin` is the device it came from through sync (`nil`: made here).
    func append(_ changes: [(table: VaultTable, id: UUID, operation: ChangeOperation, origin: UUID?)],
                now: Int64, device: VaultValue) throws {
        guard !isDisabled, let key = keys?.key else { return }
        try load(key)
        var codedOperation: ChangeOperation?, operationCode = VaultValue.null
        var codedTable: VaultTable?, tableCode = VaultValue.null
        var start = 0
        while start < changes.count {
            var level = Self.insertSQL.count - 1
            while (1 << level) > changes.count - start { level -= 1 }
            let size = 1 << level
            var values: [VaultValue] = []
            values.reserveCapacity(size * 9)
            var sequence = headSequence
            var mac = headMAC
            for change in changes[start..<(start + size)] {
                sequence += 1
                // A batch is one table and one operation: their stored codes are looked up once.
                if change.operation != codedOperation {
                    codedOperation = change.operation
                    operationCode = AuditCodes.stored(AuditCodes.action(change.operation))
                }
                if change.table != codedTable {
                    codedTable = change.table
                    tableCode = ChangeLogCodes.stored(change.table)
                }
                let columns = AuditChain.Columns(
                    seq: sequence, time: .integer(now), device: device, actor: actor,
                    action: operationCode, table: tableCode, entityID: change.id.vaultValue,
                    origin: change.origin?.vaultValue ?? .null)
                mac = try message.mac(key, previous: mac, columns)
                Self.appendRow(columns, mac: mac, to: &values)
            }
            try connection.execute(Self.insertSQL[level], values)
            // Only once the rows are in: a failed insert leaves the cached head as it was.
            headSequence = sequence
            headMAC = mac
            start += size
        }
    }

    /// Appends one event entry (`table` and `id` `nil` for a vault-wide event).
    func append(action: AuditAction, table: VaultTable?, id: UUID?, now: Int64, device: VaultValue) throws {
        guard !isDisabled, let key = keys?.key else { return }
        try load(key)
        let columns = AuditChain.Columns(
            seq: headSequence + 1, time: .integer(now), device: device, actor: actor,
            action: AuditCodes.stored(action), table: table.map(ChangeLogCodes.stored) ?? .null,
            entityID: id?.vaultValue ?? .null)
        let mac = try message.mac(key, previous: headMAC, columns)
        var values: [VaultValue] = []
        values.reserveCapacity(9)
        Self.appendRow(columns, mac: mac, to: &values)
        try connection.execute(Self.insertSQL[0], values)
        headSequence = columns.seq
        headMAC = mac
    }

    /// Appends the 9 arguments of one row (no array per entry).
    private static func appendRow(_ columns: AuditChain.Columns, mac: Data, to values: inout [VaultValue]) {
        values.append(.integer(columns.seq))
        values.append(columns.time)
        values.append(columns.device)
        values.append(columns.actor)
        values.append(columns.action)
        values.append(columns.table)
        values.append(columns.entityID)
        values.append(columns.origin)
        values.append(.blob(mac))
    }

    /// Reads the head and the actor once per transaction.
    private func load(_ key: AuditKey) throws {
        guard !isLoaded else { return }
        let row = try connection.fetchOne(Self.loadSQL) { row in
            (sequence: row.isNull(at: 0) ? 0 : row.int64(at: 0),
             mac: row.isNull(at: 1) ? nil : row.blob(at: 1),
             actor: AuditChain.storedValue(row, 2))
        }
        guard let row else { throw MedVaultError(.corrupted, reason: "the audit trail's head could not be read") }
        if row.sequence == 0 {
            headMAC = Data(try AuditChain.genesis(key))
        } else {
            guard let mac = row.mac, mac.count == AuditKey.macLength else {
                throw MedVaultError(.corrupted, reason: "the audit trail's newest entry has no valid MAC")
            }
            headMAC = mac
        }
        headSequence = row.sequence
        actor = row.actor
        isLoaded = true
    }

    static let loadSQL = """
        SELECT (SELECT seq FROM medvault_audit ORDER BY seq DESC LIMIT 1), \
        (SELECT mac FROM medvault_audit ORDER BY seq DESC LIMIT 1), \
        (SELECT id FROM professional LIMIT 1)
        """

    /// `INSERT` statements of 1, 2, 4, … 64 rows.
    static let insertSQL: [String] = (0...6).map { level in
        let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: 1 << level).joined(separator: ", ")
        return "INSERT INTO medvault_audit (seq, time, device, actor, action, entity_table, entity_id, origin, mac) "
            + "VALUES \(rows)"
    }
}
