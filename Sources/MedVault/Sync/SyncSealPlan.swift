import Foundation
import MedVaultCore

/// The plan of a seal run too large for one transaction (`sync_seal_plan`, see
/// ``SyncSealPlanSchema``): one row per record changed in the run, in the order of
/// its first change, pointing at its last change.
///
/// Package API for the sync engine's sealer (module MedVaultSync). Every function runs
/// inside the caller's write transaction. The plan is made by one SQL statement over
/// the change log: SQLite groups the run's entries (its sort is in memory, as every
/// temporary structure of a vault; about 10 MB for 210,000 entries) and no Swift value
/// holds them; each step then reads a bounded number of rows.
package enum SyncSealPlan {
    /// One planned record: the sequence of its first change in the run (its envelope
    /// id derives from it) and its last change (what its envelope describes).
    package struct Item: Sendable {
        package let firstSequence: Int64
        /// `nil` when the app pruned the entry meanwhile (``Vault/pruneChanges(through:)``
        /// before sync consumed it): nothing is known of the record any more.
        package let last: ChangeLogEntry?
    }

    /// Plans the change-log entries in `(after, through]`: one row per record.
    ///
    /// - Returns: How many records the plan holds.
    /// - Throws: `conflict` when a plan is already stored.
    @discardableResult
    package static func make(after start: Int64, through end: Int64, _ db: DatabaseConnection) throws -> Int {
        guard try isEmpty(db) else {
            throw MedVaultError(.conflict, reason: "a seal plan is already in progress")
        }
        try db.execute("""
            INSERT INTO sync_seal_plan (first_seq, last_seq)
            SELECT min(seq), max(seq) FROM medvault_change WHERE seq > ? AND seq <= ? GROUP BY table_name, record_id
            """, [.integer(start), .integer(end)])
        return db.changedRowCount
    }

    /// The first `limit` planned records, in order, each with its last change (every
    /// row of the plan, also one whose entry was pruned, so that the plan always drains).
    package static func next(limit: Int, _ db: DatabaseConnection) throws -> [Item] {
        try db.fetchAll("""
            SELECT p.first_seq, c.seq, c.table_name, c.record_id, c.operation, c.version, c.hlc, d.device_id
            FROM sync_seal_plan p LEFT JOIN medvault_change c ON c.seq = p.last_seq
            LEFT JOIN medvault_device d ON d.id = c.device
            ORDER BY p.first_seq LIMIT ?
            """, [.integer(Int64(limit))]) { row in
            Item(firstSequence: row.int64(at: 0), last: row.isNull(at: 1) ? nil : try ChangeLogReader.entry(row, from: 1))
        }
    }

    /// Deletes the planned records up to and including the one first changed at `sequence`.
    package static func remove(through sequence: Int64, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM sync_seal_plan WHERE first_seq <= ?", [.integer(sequence)])
    }

    /// The highest last sequence planned; `nil` when no record is.
    package static func highestLastSequence(_ db: DatabaseConnection) throws -> Int64? {
        try db.fetchOne("SELECT max(last_seq) FROM sync_seal_plan") { row in row.isNull(at: 0) ? nil : row.int64(at: 0) } ?? nil
    }

    /// Whether no record is planned.
    package static func isEmpty(_ db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT NOT EXISTS (SELECT 1 FROM sync_seal_plan)") { row in row.int64(at: 0) != 0 } ?? true
    }
}
