/// One page of a patient's history, newest session first.
public struct SessionHistoryPage: Sendable, Hashable {
    /// The sessions of this page with their diagnoses.
    public var entries: [SessionHistoryEntry]
    /// Where the next page starts, or `nil` when this is the last page.
    public var nextCursor: SessionHistoryCursor?

    /// Creates a page.
    public init(entries: [SessionHistoryEntry], nextCursor: SessionHistoryCursor?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}
