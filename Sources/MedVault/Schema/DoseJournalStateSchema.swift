/// Migration "dose journal" (issue #38): the vault's side of the dose journal
/// (docs/extensions.md), device-local like the sync state (never synced).
///
/// - `dose_journal_state`: the current journal key (inside the encrypted database, so
///   the vault can open the journal to merge it and write its plan), how many days the
///   plan covers, the zone of frequency-derived doses and the end of the latest plan
///   written. No row: no journal.
/// - `dose_journal_merged`: every journal entry merged, by its id, with its outcome, in
///   the merge's transaction: an entry seen again (the journal not yet cleaned when a
///   merge was killed) is skipped, so each is applied exactly once.
///
/// Frozen: its SQL is a literal.
enum DoseJournalStateSchema {
    static func createState(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE dose_journal_state (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                journal_key BLOB NOT NULL CHECK (length(journal_key) = 32),
                plan_days INTEGER NOT NULL CHECK (plan_days BETWEEN 1 AND 31),
                time_zone TEXT NOT NULL,
                issued_at INTEGER NOT NULL,
                plan_until INTEGER  -- the end of the latest plan written; a merge refuses later doses
            );
            CREATE TABLE dose_journal_merged (
                entry_id BLOB NOT NULL PRIMARY KEY CHECK (length(entry_id) = 16),
                outcome TEXT NOT NULL,
                merged_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
