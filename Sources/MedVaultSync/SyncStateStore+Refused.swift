import Foundation
import MedVault
import MedVaultCore

/// The refused envelopes a vault keeps until the app dismisses them (migration "sync
/// refused envelopes", see `SyncRefusedEnvelopeSchema` in MedVault). Every function runs
/// inside the caller's transaction.
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
}
