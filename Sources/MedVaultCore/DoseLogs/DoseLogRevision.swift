import Foundation

/// One entry of a dose log's history: the value a correction or a void replaced,
/// when, and why. Revisions are append-only (the SQLCipher store refuses UPDATE and
/// DELETE of them even in raw SQL).
///
/// A voided log leaves its dose unlogged (so the dose can be logged again) and
/// survives only here: ``DoseLogRepository/get(_:)`` then throws `notFound`, while
/// ``DoseLogRepository/history(of:)`` still returns every revision, the last one a
/// ``Kind/void`` holding the log as it was when voided.
public struct DoseLogRevision: Sendable, Hashable, Codable, Identifiable {
    /// What replaced the previous value.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A correction: the log continues with new values.
        case correction
        /// A void: the log was withdrawn.
        case void
    }

    /// The revision's own identifier.
    public let id: UUID
    /// The log this revision belongs to (``DoseLog/id``).
    public var doseLogID: UUID
    /// Correction or void.
    public var kind: Kind
    /// The log as it was before the change (its version is the one replaced).
    public var previous: DoseLog
    /// Why, as given by the caller.
    public var reason: String?
    /// When the change was written.
    public var recordedAt: Date

    /// Creates a revision.
    public init(id: UUID = UUID(), doseLogID: UUID, kind: Kind, previous: DoseLog, reason: String?, recordedAt: Date) {
        self.id = id
        self.doseLogID = doseLogID
        self.kind = kind
        self.previous = previous
        self.reason = reason
        self.recordedAt = recordedAt
    }
}
