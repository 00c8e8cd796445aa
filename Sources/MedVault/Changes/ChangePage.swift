/// A page of the change log, read with `Vault.changes(after:limit:)`.
public struct ChangePage: Hashable, Sendable {
    /// The entries, oldest first.
    public let entries: [ChangeLogEntry]
    /// Where the next page starts: pass it to `Vault.changes(after:limit:)`, or
    /// persist it. When the page is empty it is the cursor that was given (or the
    /// start of the log).
    public let next: ChangeCursor
    /// Whether more entries followed this page when it was read.
    public let hasMore: Bool
}
