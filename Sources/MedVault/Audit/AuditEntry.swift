import Foundation

/// One entry of a vault's audit trail: who did what to which record, when, on which
/// device. It never carries a field value (docs/audit.md).
public struct AuditEntry: Hashable, Sendable, Codable {
    /// Position in the trail: contiguous from 1.
    public let sequence: Int64
    /// When the entry was written (wall clock, millisecond precision).
    public let time: Date
    /// The vault database that wrote it (its change-log device id); `nil` if its row is missing.
    public let deviceID: UUID?
    /// The id of the vault's professional profile when one was saved at the time, else `nil`.
    public let actor: UUID?
    /// What happened.
    public let action: AuditAction
    /// The record's table; `nil` for a vault-wide event (a backup, an unlock).
    public let table: VaultTable?
    /// The record's id (for an export: the patient's); `nil` for a vault-wide event.
    public let entityID: UUID?

    /// Creates an entry (the trail creates them; this is for tests).
    public init(sequence: Int64, time: Date, deviceID: UUID?, actor: UUID?, action: AuditAction,
                table: VaultTable?, entityID: UUID?) {
        self.sequence = sequence
        self.time = time
        self.deviceID = deviceID
        self.actor = actor
        self.action = action
        self.table = table
        self.entityID = entityID
    }
}

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
    /// chain (sequence 0: the checkpoint itself).
    case badCheckpoint
}
