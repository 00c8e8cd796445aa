import Foundation

/// One entry of a vault's change log: which record of which table changed, how, and
/// when. It never carries a field value.
///
/// Entries are appended by the repositories in the transaction that made the change
/// (see docs/changes.md), so an entry exists exactly when its change was committed.
public struct ChangeLogEntry: Hashable, Sendable, Codable {
    /// The local sequence number: strictly increasing along the log, without gaps,
    /// never reused (even after pruning).
    public let sequence: Int64
    /// The table of the record.
    public let table: VaultTable
    /// The record's identifier.
    public let recordID: UUID
    /// What happened to the record.
    public let operation: ChangeOperation
    /// The record's version after the change (before it, for a delete); `nil` for an
    /// app table logged without a version column.
    public let version: Int64?
    /// When, on a hybrid logical clock that never goes back.
    public let timestamp: HybridTimestamp
    /// The device (vault database) that wrote the entry.
    public let deviceID: UUID

    /// Creates an entry (the log creates them; this is for tests and sync engines).
    public init(sequence: Int64, table: VaultTable, recordID: UUID, operation: ChangeOperation,
                version: Int64?, timestamp: HybridTimestamp, deviceID: UUID) {
        self.sequence = sequence
        self.table = table
        self.recordID = recordID
        self.operation = operation
        self.version = version
        self.timestamp = timestamp
        self.deviceID = deviceID
    }
}
