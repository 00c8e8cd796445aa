import Foundation
import MedVaultCore
import MedVaultKeys

/// Walks the chain of `medvault_audit` and compares its head with the checkpoint.
enum AuditVerifier {
    /// How far past a bad entry the verifier looks for the entry that belongs there
    /// (to tell `reordered` from `edited`).
    static let reorderWindow = 1_000

    /// The verdict on the trail in `db`, given the checkpoint file's reading and the
    /// keyring's record.
    static func verify(_ db: DatabaseConnection, key: AuditKey, checkpoint: AuditCheckpoint.Reading,
                       record: AuditAnchor.Reading) throws -> (AuditVerification, head: AuditCheckpoint) {
        var previous = try AuditChain.genesis(key)
        var expected: Int64 = 1
        var failure: AuditVerification?
        var failedPrevious: [UInt8] = []
        var message = AuditChain.Message()
        try db.forEachRow(AuditTrailReader.selectForVerify, [.integer(0)]) { row in
            let (columns, mac) = AuditTrailReader.columns(row)
            if columns.seq != expected {
                failure = .tampered(sequence: expected, problem: .missing)
                return false
            }
            let computed = try message.mac(key, previous: previous, columns)
            guard AuditChain.equal(computed, mac) else {
                failure = .tampered(sequence: expected, problem: .edited)
                failedPrevious = previous
                return false
            }
            previous = mac
            expected += 1
            return true
        }
        if case .tampered(let sequence, .edited) = failure,
           try belongsLater(sequence: sequence, previous: failedPrevious, db, key: key) {
            failure = .tampered(sequence: sequence, problem: .reordered)
        }
        let count = expected - 1
        let head = AuditCheckpoint(sequence: count, mac: previous)
        if let failure { return (failure, head) }
        let anchor: AuditAnchor?
        switch record {
        case .none: anchor = nil
        case .invalid: return (.tampered(sequence: 0, problem: .badCheckpoint), head)
        case .valid(let valid): anchor = valid
        }
        if let trail = anchor?.trail, try !holds(db, sequence: 1, mac: trail.first) {
            return (.tampered(sequence: 1, problem: .emptied), head)
        }
        if let problem = try checkpointProblem(db, checkpoint, count: count, record: record) { return (problem, head) }
        if let trail = anchor?.trail, trail.sequence > 0 {
            if trail.sequence > count { return (.tampered(sequence: count + 1, problem: .rolledBack), head) }
            if try !holds(db, sequence: trail.sequence, mac: trail.head) {
                return (.tampered(sequence: trail.sequence, problem: .rolledBack), head)
            }
        }
        return (.intact(entryCount: count), head)
    }

    /// What the checkpoint file says is wrong with a chain of `count` entries that
    /// verifies, if anything.
    private static func checkpointProblem(_ db: DatabaseConnection, _ checkpoint: AuditCheckpoint.Reading, count: Int64,
                                          record: AuditAnchor.Reading) throws -> AuditVerification? {
        switch checkpoint {
        case .missing:
            // Only a trail that never had an entry may lack its checkpoint (see docs/audit.md).
            return count > 0 ? .tampered(sequence: 0, problem: .badCheckpoint) : nil
        case .invalid:
            return .tampered(sequence: 0, problem: .badCheckpoint)
        case .valid(let saved) where saved.isRestored:
            // A restore's checkpoint stands in for the head only while the keyring expects
            // that very restore (or the keyring predates records: a restore by an earlier version).
            return expectsRestore(saved, record) ? nil : .tampered(sequence: 0, problem: .reusedRestoreCheckpoint)
        case .valid(let saved):
            if saved.sequence > count { return .tampered(sequence: count + 1, problem: .truncated) }
            if saved.sequence > 0, try !holds(db, sequence: saved.sequence, mac: saved.mac) {
                return .tampered(sequence: saved.sequence, problem: .badCheckpoint)
            }
            return nil
        }
    }

    /// Whether a checkpoint flagged *restored* is the restore the keyring awaits: its MAC
    /// field carries the restore's id (docs/audit.md, "Restore").
    /// A keyring without a record (an earlier version's restore) expects any; one whose
    /// record does not authenticate expects none.
    static func expectsRestore(_ saved: AuditCheckpoint, _ record: AuditAnchor.Reading) -> Bool {
        switch record {
        case .none: return true
        case .invalid: return false
        case .valid(let anchor):
            guard let pending = anchor.pendingRestore else { return false }
            return AuditChain.equal(pending, saved.mac)
        }
    }

    /// Whether the trail's entry at `sequence` carries `mac`.
    static func holds(_ db: DatabaseConnection, sequence: Int64, mac: [UInt8]) throws -> Bool {
        let stored = try db.fetchOne("SELECT mac FROM medvault_audit WHERE seq = ?", [.integer(sequence)]) {
            [UInt8]($0.blob(at: 0))
        }
        guard let stored else { return false }
        return AuditChain.equal(stored, mac)
    }

    /// Whether an entry later in the trail verifies at position `sequence` after
    /// `previous`: the entry that belongs there was moved.
    private static func belongsLater(sequence: Int64, previous: [UInt8], _ db: DatabaseConnection,
                                     key: AuditKey) throws -> Bool {
        var found = false
        var seen = 0
        var message = AuditChain.Message()
        try db.forEachRow(AuditTrailReader.selectForVerify, [.integer(sequence)]) { row in
            var (columns, mac) = AuditTrailReader.columns(row)
            columns.seq = sequence
            if AuditChain.equal(try message.mac(key, previous: previous, columns), mac) {
                found = true
                return false
            }
            seen += 1
            return seen < reorderWindow
        }
        return found
    }
}
