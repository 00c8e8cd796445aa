import CSQLCipher
import Foundation
import MedVaultCore

/// Reads and writes records row by row for the sync engine (module MedVaultSync), and
/// gives it the change log and device id inside its own transactions.
///
/// Package API. Every function runs inside the caller's write (or read) transaction.
/// Writes keep the medical-record rules: they go through the same tables and triggers
/// as the repositories (a patient is never deleted, a diagnosis snapshot and signed
/// content never change, signatures and addenda are never altered), so a remote change
/// that breaks one fails with the trigger's `immutable` error and changes nothing. An
/// `UPDATE` names only the columns whose values differ, so a rule guarding a column
/// (`BEFORE UPDATE OF …`) fires only when that column really changes. A written record
/// gets one change-log entry (by this device, which the engine then treats as already
/// synced) and a patient its search-index rows.
package enum SyncRecordStore {
    /// The column that identifies a record of `table`: `session_id` for a signature
    /// (one per session), `id` for every other record table.
    package static func keyColumn(_ table: VaultTable) -> String {
        RecordTableRegistry.record(table)?.keyColumn ?? "id"
    }

    /// The synced columns of `table`: every column but an `INTEGER PRIMARY KEY` (a
    /// local rowid alias), in table order.
    ///
    /// - Throws: `invalidArgument` for a table that is not a MedVault record table.
    package static func columns(of table: VaultTable, _ db: DatabaseConnection) throws -> [String] {
        guard VaultTable.recordTables.contains(table) else {
            throw MedVaultError(.invalidArgument, field: "table", reason: "not a record table sync carries")
        }
        // PRAGMA table_info: cid, name, type, notnull, dflt_value, pk.
        let rows = try db.fetchAll("PRAGMA table_info(\(table.rawValue))") { row in
            (name: row.text(at: 1), type: row.text(at: 2).uppercased(), pk: row.int64(at: 5))
        }
        return rows.filter { !($0.pk == 1 && $0.type == "INTEGER") }.map(\.name)
    }

    /// The stored state of one record, or `nil` when the row does not exist.
    ///
    /// - Parameter columns: The table's synced columns when the caller has them
    ///   (``columns(of:_:)``, read once per page), else they are read here.
    package static func read(_ table: VaultTable, id: UUID, columns: [String]? = nil,
                             _ db: DatabaseConnection) throws -> SyncRowState? {
        let names = try columns ?? Self.columns(of: table, db)
        let sql = "SELECT \(names.joined(separator: ", ")) FROM \(table.rawValue) WHERE \(keyColumn(table)) = ?"
        return try db.fetchOne(sql, [id.vaultValue]) { row in
            var columns: [String: SyncColumnValue] = [:]
            for (index, name) in names.enumerated() {
                columns[name] = SyncColumnValue(row.value(at: Int32(index)))
            }
            return SyncRowState(columns: columns)
        }
    }

    /// What ``write(_:table:id:operation:_:)`` did.
    package enum WriteOutcome: Sendable, Equatable {
        case inserted, updated, deleted
        /// The row already held this state (or was already absent).
        case unchanged
    }

    /// Makes the stored row of record `id` equal `state` (`nil`: no row) and logs it.
    ///
    /// - Parameters:
    ///   - operation: The change-log operation to record for an update (a remote
    ///     `deactivate`, `cancel`…); an insert logs `insert`, a removal `delete`.
    ///   - columns: The table's synced columns, when the caller read them already.
    ///   - origin: The device the change came from through sync, which its audit entry
    ///     names; `nil` for a change this device's user made (a conflict resolved here).
    /// - Throws: `invalidArgument` when the state names a column this vault's table
    ///   does not have or another record's id; `immutable` when a medical-record rule
    ///   refuses the change; constraint errors. Nothing is written on error.
    @discardableResult
    package static func write(_ state: SyncRowState?, table: VaultTable, id: UUID, operation: ChangeOperation,
                              columns: [String]? = nil, origin: UUID? = nil, _ db: DatabaseConnection) throws -> WriteOutcome {
        let names = try columns ?? Self.columns(of: table, db)
        let key = keyColumn(table)
        let current = try read(table, id: id, columns: names, db)
        guard let state else {
            guard let current else { return .unchanged }
            try db.execute("DELETE FROM \(table.rawValue) WHERE \(key) = ?", [id.vaultValue])
            try db.changeLog.append(table: table, id: id, operation: .delete, version: current.version, origin: origin)
            return .deleted
        }
        let known = Set(names)
        guard state.columns.keys.allSatisfy(known.contains) else {
            throw MedVaultError(.invalidArgument, field: "state",
                                reason: "the synced record has a column this vault's schema does not know")
        }
        guard state.columns[key] == SyncColumnValue(id.vaultValue) else {
            throw MedVaultError(.invalidArgument, field: "state", reason: "the synced record carries another id")
        }
        let outcome: WriteOutcome
        if let current {
            let changed = names.filter { state.columns[$0] != nil && state.columns[$0] != current.columns[$0] }
            guard !changed.isEmpty else { return .unchanged }
            let assignments = changed.map { "\($0) = ?" }.joined(separator: ", ")
            try db.execute("UPDATE \(table.rawValue) SET \(assignments) WHERE \(key) = ?",
                           changed.map { state.columns[$0]!.vaultValue } + [id.vaultValue])
            try db.changeLog.append(table: table, id: id, operation: operation == .insert ? .update : operation,
                                    version: state.version, origin: origin)
            outcome = .updated
            try SessionNoteIndex.indexWritten(table, id: id, changedColumns: changed, in: db)
        } else {
            let present = names.filter { state.columns[$0] != nil }
            try insertRow(table, columns: present, values: present.map { state.columns[$0]!.vaultValue }, db)
            try db.changeLog.append(table: table, id: id, operation: .insert, version: state.version, origin: origin)
            outcome = .inserted
            try SessionNoteIndex.indexWritten(table, id: id, in: db)
        }
        if table == .patient { try reindexPatient(id, db) }
        return outcome
    }

    // MARK: - Batch of new records (a clone's common case)

    /// Inserts the state of record `id`, which this database does not hold (the caller
    /// checked with ``existingIDs(_:among:_:)`` in this transaction), without logging
    /// it: the caller logs a run of inserts at once with ``logInserts(_:_:)``, before
    /// any other change, in the same transaction.
    ///
    /// The same checks and the same `INSERT` as ``write(_:table:id:operation:columns:origin:_:)``
    /// for a new record; a patient gets its search-index rows.
    ///
    /// - Throws: `invalidArgument` for a column this schema lacks or another record's
    ///   id (before writing); a rule's or constraint's error (the row is not written).
    package static func insertNew(_ state: SyncRowState, table: VaultTable, id: UUID, columns names: [String],
                                  _ db: DatabaseConnection) throws {
        let key = keyColumn(table)
        var present: [String] = []
        var values: [VaultValue] = []
        present.reserveCapacity(names.count)
        values.reserveCapacity(names.count)
        for name in names {
            guard let value = state.columns[name] else { continue }
            present.append(name)
            values.append(value.vaultValue)
        }
        // `names` are distinct: fewer found than the state holds means a column this
        // schema does not know.
        guard present.count == state.columns.count else {
            throw MedVaultError(.invalidArgument, field: "state",
                                reason: "the synced record has a column this vault's schema does not know")
        }
        guard state.columns[key] == SyncColumnValue(id.vaultValue) else {
            throw MedVaultError(.invalidArgument, field: "state", reason: "the synced record carries another id")
        }
        try insertRow(table, columns: present, values: values, db)
        if table == .patient { try reindexPatient(id, db) }
        try SessionNoteIndex.indexWritten(table, id: id, in: db)
    }

    /// Logs records inserted by ``insertNew(_:table:id:columns:_:)``, in order, with the
    /// change log's multi-row appends (one `insert` entry each, as ``write(_:table:id:operation:columns:origin:_:)``,
    /// its audit entry naming `origin`, the device it came from).
    package static func logInserts(_ inserted: [(table: VaultTable, id: UUID, version: Int64?, origin: UUID)],
                                   _ db: DatabaseConnection) throws {
        try db.changeLog.append(inserted.map {
            ChangeRecord(table: $0.table, id: $0.id, operation: .insert, version: $0.version, origin: $0.origin)
        })
    }

    /// Which of `ids` have a row in `table`: one indexed lookup per 64 ids.
    package static func existingIDs(_ table: VaultTable, among ids: [UUID], _ db: DatabaseConnection) throws -> Set<UUID> {
        guard VaultTable.recordTables.contains(table) else {
            throw MedVaultError(.invalidArgument, field: "table", reason: "not a record table sync carries")
        }
        var found = Set<UUID>()
        let sql = "SELECT \(keyColumn(table)) FROM \(table.rawValue) WHERE \(keyColumn(table)) IN (\(inList))"
        for values in inListArguments(ids) {
            try db.forEachRow(sql, values) { row in
                found.insert(try UUID(row: row, column: 0))
                return true
            }
        }
        return found
    }

    /// The placeholders of a fixed-size `IN` list (one prepared statement per table).
    package static let inListSize = 64
    package static let inList = Array(repeating: "?", count: inListSize).joined(separator: ", ")

    /// `ids` as arguments for ``inList``, in chunks of ``inListSize``, the last chunk
    /// padded with its first id (a repeated value changes nothing in an `IN` list).
    package static func inListArguments(_ ids: [UUID]) -> [[VaultValue]] {
        stride(from: 0, to: ids.count, by: inListSize).map { start in
            var chunk = ids[start..<min(start + inListSize, ids.count)].map(\.vaultValue)
            chunk += Array(repeating: chunk[0], count: inListSize - chunk.count)
            return chunk
        }
    }

    private static func insertRow(_ table: VaultTable, columns present: [String], values: [VaultValue],
                                  _ db: DatabaseConnection) throws {
        if table == .diagnosis { return try DiagnosisStorage.insert(columns: present, values: values, db) }
        let placeholders = Array(repeating: "?", count: present.count).joined(separator: ", ")
        try db.execute("INSERT INTO \(table.rawValue) (\(present.joined(separator: ", "))) VALUES (\(placeholders))", values)
    }

    /// Rebuilds a patient's search-index rows from its stored row.
    private static func reindexPatient(_ id: UUID, _ db: DatabaseConnection) throws {
        let sql = "SELECT \(ClinicalRows.patientAndRowidColumns) FROM patient WHERE id = ?"
        guard let found = try db.fetchOne(sql, [id.vaultValue], ClinicalRows.patientAndRowid) else { return }
        try PatientSearchIndex.replace(found.patient, rowid: found.rowid, in: db)
    }

    // MARK: - Change log

    /// Up to `limit` change-log entries after local sequence `sequence`, oldest first.
    package static func changeEntries(after sequence: Int64, limit: Int, _ db: DatabaseConnection) throws -> [ChangeLogEntry] {
        try ChangeLogReader.entries(after: sequence, limit: limit, db)
    }

    /// The newest change-log sequence (0 for an empty log).
    package static func latestSequence(_ db: DatabaseConnection) throws -> Int64 {
        try ChangeLogReader.latestSequence(db)
    }

    /// This vault database's device id (the change log's current device).
    package static func deviceID(_ db: DatabaseConnection) throws -> UUID {
        try ChangeLogReader.deviceID(db)
    }
}

extension VaultRow {
    /// Column `index` as whatever SQLite stored.
    func value(at index: Int32) -> VaultValue {
        switch medvault_sqlite3_column_type(statement, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        default: .blob(blob(at: index))
        }
    }
}
