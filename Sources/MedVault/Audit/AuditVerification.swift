/// What ``VaultAuditTrail/verify()`` found.
public enum AuditVerification: Hashable, Sendable {
    /// Every entry verifies, and the chain reaches the checkpoint kept outside the database.
    case intact(entryCount: Int64)
    /// The first position where the trail is not what was written, and why.
    case tampered(sequence: Int64, problem: AuditProblem)

    /// Whether the trail verified.
    public var isIntact: Bool {
        if case .intact = self { return true }
        return false
    }
}

/// Why an audit trail failed verification (docs/audit.md, "What verify detects").
public enum AuditProblem: String, Hashable, Sendable, Codable {
    /// The entry at this position was changed (any column, including its MAC), or
    /// replaced by one MACed with another key.
    case edited
    /// The entry at this position is missing (a gap in the sequence).
    case missing
    /// The entry at this position belongs at another position of the trail.
    case reordered
    /// The trail ends before the checkpoint: entries from this position on were removed.
    case truncated
    /// The checkpoint outside the database is missing, damaged or does not match the
    /// chain (sequence 0: the checkpoint itself, or the keyring's record of the trail).
    case badCheckpoint
    /// The trail's first entry is not the one the keyring recorded, or there is none
    /// (sequence 1): the trail was emptied, and perhaps started again.
    case emptied
    /// The trail ends before, or differs at, a head the keyring recorded: an older
    /// checkpoint was put back with the trail cut to match it.
    case rolledBack
    /// The checkpoint announces a restore this vault's keyring does not expect: it was
    /// copied from another restore (sequence 0).
    case reusedRestoreCheckpoint
}
