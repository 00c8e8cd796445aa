/// Migration 5, "parent checks without statement journals": the insert triggers of
/// sessions and diagnoses are dropped; the repositories check the parent instead, in
/// the same transaction, just before the insert.
///
/// Why: a table with any trigger for INSERT makes SQLite write every page an insert
/// modifies to a statement journal first, so that the statement can be undone alone if
/// the trigger or a constraint aborts it. Under SQLCipher each of those page images is
/// encrypted and authenticated like a page of the database. With the two triggers,
/// bulk inserts of sessions and diagnoses ran about 3× slower than without them
/// (measured in docs/benchmarks-method.md, "Statement journals").
///
/// What SQL still enforces on raw inserts: the foreign keys (`patient_id REFERENCES
/// patient(id)`, `session_id REFERENCES clinical_session(id)`) refuse a missing parent
/// (`notFound`); the unique ids refuse a duplicate. What only the repositories enforce
/// now: a new session's patient must be active. The medical-record rules (completed
/// sessions, diagnoses and patients never deleted, snapshots and dates fixed) are
/// update and delete triggers, which inserts never fire: they stay.
///
/// Frozen: it drops two named triggers and nothing else.
enum InsertCheckSchema {
    static func dropInsertTriggers(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            DROP TRIGGER clinical_session_patient_active;
            DROP TRIGGER diagnosis_session_exists;
            """)
    }
}
