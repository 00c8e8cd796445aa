import Foundation
import MedVaultCore

/// The SQL that reads and prunes `medvault_change` (see ``ChangeLogSchema``).
///
/// Pruning never deletes the newest entry: it anchors the sequence (the next is
/// `max(seq) + 1`) and the clock (the next timestamp exceeds its `hlc`).
/// `medvault_metadata.pruned_through` is the highest sequence pruned: a cursor before
/// it has missed entries.
enum ChangeLogReader {
    /// The most entries one page may hold.
    static let maximumPageSize = 10_000

    static let selectEntries = """
        SELECT c.seq, c.table_name, c.record_id, c.operation, c.version, c.hlc, d.device_id
        FROM medvault_change c JOIN medvault_device d ON d.id = c.device WHERE c.seq > ? ORDER BY c.seq LIMIT ?
        """

    /// Up to `limit` entries after `sequence`, oldest first.
    static func entries(after sequence: Int64, limit: Int, _ db: DatabaseConnection) throws -> [ChangeLogEntry] {
        try db.fetchAll(selectEntries, [.integer(sequence), .integer(Int64(limit))]) { row in try entry(row, from: 0) }
    }

    /// The entry in columns `from`… of `row`, selected as ``selectEntries`` selects them.
    static func entry(_ row: VaultRow, from first: Int32) throws -> ChangeLogEntry {
        ChangeLogEntry(
            sequence: row.int64(at: first), table: ChangeLogCodes.table(row.text(at: first + 1)),
            recordID: try UUID(row: row, column: first + 2), operation: ChangeLogCodes.operation(row.text(at: first + 3)),
            version: row.isNull(at: first + 4) ? nil : row.int64(at: first + 4),
            timestamp: HybridTimestamp(rawValue: row.int64(at: first + 5)), deviceID: try UUID(row: row, column: first + 6))
    }

    /// The highest sequence ever written (0 for an empty log): pruning keeps the newest entry.
    static func latestSequence(_ db: DatabaseConnection) throws -> Int64 {
        try db.fetchOne("SELECT coalesce(max(seq), 0) FROM medvault_change") { row in row.int64(at: 0) } ?? 0
    }

    /// The highest sequence pruned; 0 when nothing was.
    static func prunedThrough(_ db: DatabaseConnection) throws -> Int64 {
        try metadataInteger("pruned_through", db) ?? 0
    }

    /// The vault database's device id.
    static func deviceID(_ db: DatabaseConnection) throws -> UUID {
        guard let id = try db.fetchOne("SELECT device_id FROM medvault_device ORDER BY id DESC LIMIT 1", [], { row in
            try UUID(row: row, column: 0)
        }) else {
            throw MedVaultError(.corrupted, reason: "the vault's device id is missing")
        }
        return id
    }

    /// Deletes the entries up to `sequence`, except the newest entry of the log.
    ///
    /// - Returns: How many entries were deleted.
    static func prune(through sequence: Int64, _ db: DatabaseConnection) throws -> Int {
        let bound = min(sequence, try latestSequence(db) - 1)
        guard bound > (try prunedThrough(db)) else { return 0 }
        try db.execute("DELETE FROM medvault_change WHERE seq <= ?", [.integer(bound)])
        let deleted = db.changedRowCount
        try setMetadata("pruned_through", bound, db)
        return deleted
    }

    /// What changed after `sequence`, for observers.
    ///
    /// - Returns: The latest sequence, the tables of the entries after `sequence`, and
    ///   whether those entries are all still there (`false` when some were pruned or
    ///   the log went back — a restored database: observers must then assume anything
    ///   changed).
    static func changedTables(after sequence: Int64, _ db: DatabaseConnection)
        throws -> (latest: Int64, tables: Set<VaultTable>, isComplete: Bool) {
        let latest = try latestSequence(db)
        guard latest > sequence else { return (latest, [], latest == sequence) }
        let first = try db.fetchOne("SELECT min(seq) FROM medvault_change WHERE seq > ?", [.integer(sequence)]) { row in
            row.isNull(at: 0) ? nil : row.int64(at: 0)
        } ?? nil
        let tables = try db.fetchAll("SELECT DISTINCT table_name FROM medvault_change WHERE seq > ?",
                                     [.integer(sequence)]) { row in ChangeLogCodes.table(row.text(at: 0)) }
        return (latest, Set(tables), first == sequence + 1)
    }

    private static func metadataInteger(_ key: String, _ db: DatabaseConnection) throws -> Int64? {
        try db.fetchOne("SELECT value FROM medvault_metadata WHERE key = ?", [.text(key)]) { row in row.int64(at: 0) }
    }

    private static func setMetadata(_ key: String, _ value: Int64, _ db: DatabaseConnection) throws {
        try db.execute("INSERT OR REPLACE INTO medvault_metadata (key, value) VALUES (?, ?)", [.text(key), .integer(value)])
    }
}
