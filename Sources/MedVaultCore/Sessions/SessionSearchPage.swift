import Foundation

/// One page of a note search (``ClinicalSessionRepository/searchNotes(_:patientID:after:limit:)``),
/// newest session first.
public struct SessionSearchPage: Sendable, Hashable {
    /// The matching sessions of this page, in history order (newest first).
    public var sessions: [ClinicalSession]
    /// Where the next page starts, or `nil` when this is the last page.
    public var nextCursor: SessionHistoryCursor?

    /// Creates a page.
    public init(sessions: [ClinicalSession], nextCursor: SessionHistoryCursor?) {
        self.sessions = sessions
        self.nextCursor = nextCursor
    }
}
