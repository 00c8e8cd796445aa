import Foundation

/// A position in a patient's history, for keyset pagination.
///
/// History is ordered newest first: by ``ClinicalSession/date`` descending (whole
/// milliseconds), then by id descending (its 16 bytes, which is also the order of
/// its upper-case `uuidString`). The next page holds the sessions strictly *after*
/// the cursor in that order. Without row values (SQLite 3.15):
///
/// ```sql
/// WHERE patient_id = :patient AND (date_ms < :ms OR (date_ms = :ms AND id < :id))
/// ORDER BY date_ms DESC, id DESC LIMIT :limit
/// ```
public struct SessionHistoryCursor: Sendable, Hashable, Codable {
    /// The date of the last session of the previous page, in milliseconds since 1970.
    public var dateMilliseconds: Int64
    /// The id of the last session of the previous page.
    public var id: UUID

    /// Creates a cursor after the given position.
    public init(dateMilliseconds: Int64, id: UUID) {
        self.dateMilliseconds = dateMilliseconds
        self.id = id
    }

    /// A cursor just after `session`.
    public init(after session: ClinicalSession) {
        self.init(dateMilliseconds: session.date.millisecondsSince1970, id: session.id)
    }

    /// Whether `session` comes strictly after this cursor in history order (is older).
    public func precedes(_ session: ClinicalSession) -> Bool {
        ClinicalSession.newer(dateMilliseconds, id, than: session.date.millisecondsSince1970, session.id)
    }
}

extension ClinicalSession {
    /// Whether position (`ms`, `id`) comes before (`otherMS`, `otherID`) in history
    /// order: later date first, then greater id first.
    public static func newer(_ ms: Int64, _ id: UUID, than otherMS: Int64, _ otherID: UUID) -> Bool {
        if ms != otherMS { return ms > otherMS }
        return otherID.uuidString.utf8.lexicographicallyPrecedes(id.uuidString.utf8)
    }

    /// Whether position (`ms`, `id`) comes before (`otherMS`, `otherID`) in agenda
    /// order: earlier date first, then smaller id first.
    public static func earlier(_ ms: Int64, _ id: UUID, than otherMS: Int64, _ otherID: UUID) -> Bool {
        if ms != otherMS { return ms < otherMS }
        return id.uuidString.utf8.lexicographicallyPrecedes(otherID.uuidString.utf8)
    }
}
