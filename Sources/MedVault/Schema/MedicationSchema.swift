/// Migration 2, "medications": medications, schedules, dose logs, and the
/// medication search index. Frozen, like every released migration.
///
/// Storage conventions, as in ``ClinicalSchema``: identifiers are 16-byte blobs,
/// instants integer milliseconds UTC, calendar dates ISO `YYYY-MM-DD` text,
/// categories their raw string values (unknown values are kept). Medication-specific:
///
/// - Quantities (dosage amount, inventory) are `INTEGER` thousandths of a unit
///   (`MedicationQuantity.thousandths`), so inventory arithmetic and "at or below
///   the minimum" are exact in SQL too.
/// - Times of day are minutes since midnight, comma-separated (`"480,1200"`), in
///   their original order; their optional labels, when any is set, are a JSON array
///   of strings and nulls beside them.
/// - Days of week are a bitmask: bit `weekday.rawValue - 1` (Monday = bit 0); 0 means
///   every day.
/// - `dose_log.patient_id` copies the medication's patient, so a patient's logs of a
///   day or a month are one range scan of `dose_log_by_patient_time`; a trigger
///   refuses moving a medication to another patient, so the copy cannot go stale.
/// - `medication_search` is a plain FTS4 table (its own copy of the two names, docid
///   = `medication.rowid`) kept in sync by triggers, inside the writing transaction.
enum MedicationSchema {
    static func createMedicationPlan(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE medication (
                rowid INTEGER PRIMARY KEY,  -- the search index's docid
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                patient_id BLOB NOT NULL REFERENCES patient(id),
                name TEXT NOT NULL,
                generic_name TEXT,
                dosage_amount INTEGER NOT NULL CHECK (dosage_amount > 0),
                dosage_unit TEXT NOT NULL,
                form TEXT NOT NULL,
                route TEXT NOT NULL,
                frequency_kind TEXT NOT NULL,
                frequency_count INTEGER,
                frequency_times TEXT,
                frequency_time_labels TEXT,
                instructions TEXT,
                start_date TEXT NOT NULL,
                end_date TEXT,
                is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
                requires_prescription INTEGER NOT NULL CHECK (requires_prescription IN (0, 1)),
                inventory_current INTEGER CHECK (inventory_current >= 0),
                inventory_minimum INTEGER CHECK (inventory_minimum >= 0),
                inventory_package_size INTEGER CHECK (inventory_package_size > 0),
                inventory_expiration_date TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1),
                CHECK ((inventory_current IS NULL) = (inventory_minimum IS NULL))
            );
            CREATE INDEX medication_by_patient ON medication(patient_id);

            CREATE TRIGGER medication_keeps_its_patient
            BEFORE UPDATE OF patient_id ON medication
            WHEN NEW.patient_id IS NOT OLD.patient_id
            BEGIN
                SELECT RAISE(ABORT, 'medvault: validation: a medication cannot move to another patient');
            END;

            CREATE TABLE medication_schedule (
                rowid INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                medication_id BLOB NOT NULL REFERENCES medication(id),
                times TEXT NOT NULL,
                time_labels TEXT,
                days_of_week INTEGER NOT NULL CHECK (days_of_week BETWEEN 0 AND 127),
                time_zone TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1)
            );
            CREATE INDEX medication_schedule_by_medication ON medication_schedule(medication_id, created_at, id);

            CREATE TABLE dose_log (
                rowid INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                medication_id BLOB NOT NULL REFERENCES medication(id),
                patient_id BLOB NOT NULL,
                scheduled_at INTEGER NOT NULL,
                taken_at INTEGER,
                status TEXT NOT NULL CHECK (status IN ('taken', 'late', 'skipped', 'missed')),
                skip_reason TEXT,
                notes TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1),
                UNIQUE (medication_id, scheduled_at),
                CHECK ((taken_at IS NOT NULL) = (status IN ('taken', 'late'))),
                CHECK (skip_reason IS NULL OR status = 'skipped')
            );
            CREATE INDEX dose_log_by_patient_time ON dose_log(patient_id, scheduled_at, medication_id);

            CREATE VIRTUAL TABLE medication_search USING fts4(
                name, generic_name, tokenize=unicode61 "remove_diacritics=1"
            );
            CREATE TRIGGER medication_search_insert AFTER INSERT ON medication
            BEGIN
                INSERT INTO medication_search(docid, name, generic_name)
                VALUES (NEW.rowid, NEW.name, NEW.generic_name);
            END;
            CREATE TRIGGER medication_search_update AFTER UPDATE OF name, generic_name ON medication
            BEGIN
                UPDATE medication_search SET name = NEW.name, generic_name = NEW.generic_name
                WHERE docid = NEW.rowid;
            END;
            CREATE TRIGGER medication_search_delete AFTER DELETE ON medication
            BEGIN
                DELETE FROM medication_search WHERE docid = OLD.rowid;
            END;
            """)
    }
}
