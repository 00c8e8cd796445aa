import Foundation
import MedVaultCore
import MedVaultKeys

/// Walks the chain of `medvault_audit` and compares its head with the checkpoint.
enum AuditVerifier {
    /// How far past a bad entry the verifier looks for the entry that belongs there
    /// (to tell `reordered` from `edited`).
    static let reorderWindow = 1_000

    /// The verdict on the trail in `db`, given the checkpoint file's reading.
    static func verify(_ db: DatabaseConnection, key: AuditKey, checkpoint: AuditCheckpoint.Reading) throws
        -> (AuditVerification, head: AuditCheckpoint) {
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
        switch checkpoint {
        case .missing:
            // Only a trail that never had an entry may lack its checkpoint (see docs/audit.md).
            if count > 0 { return (.tampered(sequence: 0, problem: .badCheckpoint), head) }
        case .invalid:
            return (.tampered(sequence: 0, problem: .badCheckpoint), head)
        case .valid(let saved):
            if saved.isRestored { break }
            if saved.sequence > count { return (.tampered(sequence: count + 1, problem: .truncated), head) }
            if saved.sequence > 0 {
                let savedMAC = try db.fetchOne("SELECT mac FROM medvault_audit WHERE seq = ?", [.integer(saved.sequence)]) {
                    [UInt8]($0.blob(at: 0))
                }
                guard let savedMAC, AuditChain.equal(savedMAC, saved.mac) else {
                    return (.tampered(sequence: saved.sequence, problem: .badCheckpoint), head)
                }
            }
        }
        return (.intact(entryCount: count), head)
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
