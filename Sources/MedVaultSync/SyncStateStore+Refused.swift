import Foundation
import MedVault
import MedVaultCore

/// The refused envelopes and unsent records a vault keeps for the app (migration "sync
/// refusals", see `SyncRefusalSchema` in MedVault). Every function runs inside the
/// caller's transaction.
extension SyncStateStore {
    /// How many refused envelopes a vault keeps, the most recent: a server that sends
    /// nothing but unreadable envelopes must not grow the file without bound.
    static let refusedEnvelopesKept = 10_000

    /// Keeps `errors` (an envelope refused again replaces its row), then drops all but the
    /// `limit` highest sequences.
    static func recordRefused(_ errors: [SyncEnvelopeError], at now: Date, keeping limit: Int = refusedEnvelopesKept,
                              _ db: DatabaseConnection) throws {
        guard !errors.isEmpty else { return }
        for error in errors {
            try db.execute("""
                INSERT OR REPLACE INTO sync_refused_envelope (sequence, envelope_id, code, reason, refused_at)
                VALUES (?, ?, ?, ?, ?)
                """, [.integer(error.sequence), error.envelopeID.vaultValue, .text(error.code.rawValue),
                      .text(error.reason), now.vaultValue])
        }
        try db.execute("""
            DELETE FROM sync_refused_envelope WHERE sequence <=
                (SELECT sequence FROM sync_refused_envelope ORDER BY sequence DESC LIMIT 1 OFFSET ?)
            """, [.integer(Int64(limit))])
    }

    /// The refused envelopes kept, in sequence order.
    static func refusedEnvelopes(_ db: DatabaseConnection) throws -> [SyncEnvelopeError] {
        try db.fetchAll("SELECT sequence, envelope_id, code, reason FROM sync_refused_envelope ORDER BY sequence") { row in
            SyncEnvelopeError(sequence: row.int64(at: 0), envelopeID: try row[1],
                              code: MedVaultError.Code(rawValue: row.text(at: 2)), reason: row.text(at: 3))
        }
    }

    /// Forgets the refused envelopes up to `sequence`; returns how many.
    static func dismissRefused(through sequence: Int64, _ db: DatabaseConnection) throws -> Int {
        try db.execute("DELETE FROM sync_refused_envelope WHERE sequence <= ?", [.integer(sequence)])
        return db.changedRowCount
    }

    // MARK: - Unsent records

    /// Lists a record of this device that could not be sealed (replacing its earlier row).
    static func noteUnsent(_ record: SyncUnsentRecord, sequence: Int64, _ db: DatabaseConnection) throws {
        try db.execute("""
            INSERT OR REPLACE INTO sync_unsent_record (table_name, record_id, sequence, code, reason)
            VALUES (?, ?, ?, ?, ?)
            """, [.text(record.table.rawValue), record.recordID.vaultValue, .integer(sequence),
                  .text(record.code.rawValue), .text(record.reason)])
    }

    /// Whether any record is listed as unsent (so a seal skips the per-record clean-up).
    static func hasUnsent(_ db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM sync_unsent_record LIMIT 1") { _ in true } ?? false
    }

    /// Takes a record off the list: a later change of it was sealed.
    static func clearUnsent(_ table: VaultTable, _ id: UUID, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM sync_unsent_record WHERE table_name = ? AND record_id = ?",
                       [.text(table.rawValue), id.vaultValue])
    }

    /// The records listed as unsent, in the order of their latest change.
    static func unsentRecords(_ db: DatabaseConnection) throws -> [SyncUnsentRecord] {
        try db.fetchAll("SELECT table_name, record_id, code, reason FROM sync_unsent_record ORDER BY sequence") { row in
            SyncUnsentRecord(table: VaultTable(row.text(at: 0)), recordID: try row[1],
                             code: MedVaultError.Code(rawValue: row.text(at: 2)), reason: row.text(at: 3))
        }
    }
}
