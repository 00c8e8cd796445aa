/// Migration "medication schedule lifecycle and reminders": schedule versions
/// (series, effective range), pauses, regimens (interval, taper, per-time amounts),
/// reminder settings, snoozed reminders, an as-needed limit and the deactivation
/// instant of medications. Frozen, like every released migration.
///
/// Existing rows are kept as they were and read as before:
/// - a schedule becomes the first version of its own series (`series_id = id`),
///   in force since its medication started (`effective_from` NULL) with no end, no
///   pause, every day, default reminders (at the dose time, 3 snoozes of 10 minutes);
/// - a medication has no as-needed limit, and an inactive one has no deactivation
///   instant (`deactivated_at` NULL), so it still expects nothing, as it did.
///
/// Only columns are added and one table created: no INSERT trigger (statement
/// journals, see ``InsertCheckSchema``). `dose_snooze.patient_id` copies the
/// medication's patient, like `dose_log.patient_id`, for one range scan per patient.
enum ScheduleLifecycleSchema {
    static func addScheduleLifecycle(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE medication ADD COLUMN maximum_doses_per_24h INTEGER
                CHECK (maximum_doses_per_24h IS NULL OR maximum_doses_per_24h >= 1);
            ALTER TABLE medication ADD COLUMN deactivated_at INTEGER;

            ALTER TABLE medication_schedule ADD COLUMN series_id BLOB;
            ALTER TABLE medication_schedule ADD COLUMN effective_from TEXT;
            ALTER TABLE medication_schedule ADD COLUMN effective_until TEXT;
            ALTER TABLE medication_schedule ADD COLUMN regimen TEXT;
            ALTER TABLE medication_schedule ADD COLUMN time_amounts TEXT;
            ALTER TABLE medication_schedule ADD COLUMN reminder_lead_minutes INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE medication_schedule ADD COLUMN snooze_minutes INTEGER NOT NULL DEFAULT 10;
            ALTER TABLE medication_schedule ADD COLUMN maximum_snoozes INTEGER NOT NULL DEFAULT 3;
            UPDATE medication_schedule SET series_id = id;
            CREATE INDEX medication_schedule_by_series ON medication_schedule(series_id);

            CREATE TABLE dose_snooze (
                medication_id BLOB NOT NULL REFERENCES medication(id),
                patient_id BLOB NOT NULL,
                scheduled_at INTEGER NOT NULL,
                snoozed_until INTEGER NOT NULL,
                snooze_count INTEGER NOT NULL CHECK (snooze_count >= 1),
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (medication_id, scheduled_at)
            );
            CREATE INDEX dose_snooze_by_patient_time ON dose_snooze(patient_id, scheduled_at);
            """)
    }
}
