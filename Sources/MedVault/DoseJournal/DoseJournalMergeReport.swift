/// What ``Vault/mergeDoseJournal()`` did with the journal's entries.
public struct DoseJournalMergeReport: Sendable, Hashable {
    /// Dose logs stored, as if logged directly (stock and adherence follow).
    public var logged = 0
    /// Snoozes stored (a snooze of a dose logged since, or older than one the vault
    /// holds, is dropped).
    public var snoozed = 0
    /// Entries the vault refused, by error code (the dose was logged in the vault
    /// already: `duplicate`; the medication was deleted: `notFound`…). Kept as merged:
    /// they are not tried again.
    public var refused: [MedVaultError.Code: Int] = [:]
    /// Entries merged before (a previous merge stopped before cleaning the journal):
    /// skipped, and removed from the journal now.
    public var alreadyMerged = 0

    /// An empty report.
    public init() {}
}
