/// Migration "sync seal plan": the first seal of a large vault, sealed in bounded
/// steps that survive a kill (docs/sync.md, "Sealing a large vault").
///
/// `sync_seal_plan`: one row per record with changes in the run being sealed, by the
/// sequence of its first change in that run (`first_seq`, which also derives its envelope
/// id) and of its last (`last_seq`, the entry its envelope describes). Each step seals the
/// first rows in order and deletes them in its own transaction, so a step either
/// happened whole or not at all, and nothing is sealed twice.
///
/// `sync_state.sealing_through`: the last change-log sequence of the run in progress;
/// 0 when none is. When the plan is empty, `sealed_through` takes that value.
///
/// Not change-logged, not synced, no trigger. Frozen: its SQL is a literal.
enum SyncSealPlanSchema {
    static func createSealPlan(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE sync_state ADD COLUMN sealing_through INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE sync_seal_plan (
                first_seq INTEGER PRIMARY KEY,
                last_seq INTEGER NOT NULL CHECK (last_seq >= first_seq)
            );
            """)
    }
}
