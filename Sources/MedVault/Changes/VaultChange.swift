/// A notification that committed transactions changed some of the tables an
/// observer watches (see `Vault.changeNotifications(in:)`).
///
/// One notification may stand for several commits: observers are told after each
/// commit, but commits made while the previous notification was being computed are
/// reported together (bursts coalesce).
public struct VaultChange: Hashable, Sendable {
    /// The watched tables that changed. When the change log cannot tell (its entries
    /// were pruned meanwhile, or the database was replaced by an older copy), every
    /// watched table is listed.
    public let tables: Set<VaultTable>
    /// The change log's position after these changes: read the entries with
    /// `Vault.changes(after:limit:)` up to it.
    public let through: ChangeCursor
}
