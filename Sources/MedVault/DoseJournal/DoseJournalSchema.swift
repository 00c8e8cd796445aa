/// The dose journal's own schema (a separate SQLCipher file, `records.medvault.journal`,
/// under the journal key): the plan an extension may read, and the entries it appends.
///
/// - `journal_plan`: the expected doses of the coming days, as the vault expanded them
///   when it last wrote the plan: medication, its name and dosage as shown on a
///   reminder, the dose instant, label and amount, and the snooze settings. Nothing of
///   the patient, their sessions or diagnoses, nor past doses.
/// - `journal_plan_info`: when the plan was written and the window it covers.
/// - `journal_entry`: what an extension recorded — a dose taken or skipped, or a snooze —
///   keyed by a random id that becomes the dose log's id in the vault; one log per dose.
///
/// Frozen: its SQL is a literal.
enum DoseJournalSchema {
    static let migrator = SchemaMigrator([.init("dose journal", apply: create)])

    static func create(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE journal_plan_info (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                written_at INTEGER NOT NULL,
                plan_from INTEGER NOT NULL,
                plan_until INTEGER NOT NULL
            );
            CREATE TABLE journal_plan (
                medication_id BLOB NOT NULL CHECK (length(medication_id) = 16),
                scheduled_at INTEGER NOT NULL,
                name TEXT NOT NULL,
                dosage_amount INTEGER NOT NULL,
                dosage_unit TEXT NOT NULL,
                label TEXT,
                amount INTEGER,
                schedule_id BLOB,
                snooze_minutes INTEGER NOT NULL,
                maximum_snoozes INTEGER NOT NULL,
                PRIMARY KEY (medication_id, scheduled_at)
            ) WITHOUT ROWID;
            CREATE INDEX journal_plan_by_time ON journal_plan(scheduled_at);
            CREATE TABLE journal_entry (
                id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
                kind TEXT NOT NULL CHECK (kind IN ('log', 'snooze')),
                medication_id BLOB NOT NULL,
                scheduled_at INTEGER NOT NULL,
                status TEXT,
                taken_at INTEGER,
                skip_reason TEXT,
                snoozed_until INTEGER,
                snooze_count INTEGER,
                recorded_at INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX journal_entry_one_log ON journal_entry(medication_id, scheduled_at) WHERE kind = 'log';
            """)
    }
}
