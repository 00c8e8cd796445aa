/// Migration 6, "medication strength, dose corrections and refills".
///
/// - `medication.strength_amount` / `strength_unit`: the active ingredient per unit of
///   the dose (850 mg per tablet), both NULL when unknown. Existing medications get
///   NULL: their `dosage_amount` / `dosage_unit` (the old, conflated "dosage") stay the
///   dose, and their inventory stays counted in that unit, so every later decrement
///   is the one the old library made (docs/medications.md, "Strength and units").
/// - `dose_log.amount`: what a taken dose took from the stock, in thousandths of the
///   dose's unit; NULL for doses not taken. Existing taken and late logs get their
///   medication's `dosage_amount`, the amount the old library subtracted.
/// - `dose_log_revision`: the previous value of a corrected or voided log, append-only
///   (UPDATE and DELETE refused by triggers). A voided log's row leaves `dose_log`, so
///   its `(medication_id, scheduled_at)` key is free for a new log of that dose.
/// - `medication_refill`: stock added, append-only.
///
/// Neither new table has an INSERT trigger (docs/storage.md: statement journals); the
/// repositories check the parent medication in the same transaction, and the foreign
/// keys refuse a missing one.
///
/// Frozen: its SQL is a literal.
enum MedicationStockSchema {
    static func addStrengthCorrectionsAndRefills(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE medication ADD COLUMN strength_amount INTEGER CHECK (strength_amount > 0);
            ALTER TABLE medication ADD COLUMN strength_unit TEXT;

            ALTER TABLE dose_log ADD COLUMN amount INTEGER CHECK (amount > 0);
            UPDATE dose_log SET amount = (SELECT m.dosage_amount FROM medication m WHERE m.id = dose_log.medication_id)
            WHERE status IN ('taken', 'late');

            CREATE TABLE dose_log_revision (
                rowid INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                dose_log_id BLOB NOT NULL CHECK (length(dose_log_id) = 16),
                medication_id BLOB NOT NULL REFERENCES medication(id),
                patient_id BLOB NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('correction', 'void')),
                reason TEXT,
                recorded_at INTEGER NOT NULL,
                scheduled_at INTEGER NOT NULL,
                taken_at INTEGER,
                amount INTEGER,
                status TEXT NOT NULL,
                skip_reason TEXT,
                notes TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL
            );
            CREATE INDEX dose_log_revision_by_log ON dose_log_revision(dose_log_id, rowid);
            CREATE INDEX dose_log_revision_by_medication ON dose_log_revision(medication_id, rowid);
            CREATE TRIGGER dose_log_revision_no_update BEFORE UPDATE ON dose_log_revision
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a dose log revision cannot change');
            END;
            CREATE TRIGGER dose_log_revision_no_delete BEFORE DELETE ON dose_log_revision
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a dose log revision cannot be deleted');
            END;

            CREATE TABLE medication_refill (
                rowid INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                medication_id BLOB NOT NULL REFERENCES medication(id),
                patient_id BLOB NOT NULL,
                quantity INTEGER NOT NULL CHECK (quantity > 0),
                refill_date TEXT NOT NULL,
                expiration_date TEXT,
                notes TEXT,
                created_at INTEGER NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1)
            );
            CREATE INDEX medication_refill_by_medication ON medication_refill(medication_id, refill_date, created_at);
            CREATE TRIGGER medication_refill_no_update BEFORE UPDATE ON medication_refill
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a refill cannot change');
            END;
            CREATE TRIGGER medication_refill_no_delete BEFORE DELETE ON medication_refill
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a refill cannot be deleted');
            END;
            """)
    }
}
