/// Migration "medication stock ledger" (issue #16): the stock becomes derived from
/// records that merge without loss across devices (docs/medications.md, "Inventory").
///
/// - `medication_stock_adjustment`: explicit stock changes (a stock given at creation,
///   a recount, the first refill of an untracked medication), append-only like refills.
///   No INSERT trigger (docs/storage.md: statement journals); the repositories check the
///   parent medication, and the foreign key refuses a missing one.
/// - `medication.inventory_declared`: the stock each version of a medication was
///   written with, which an update compares its copy with (a stale copy does not undo
///   a dose logged since). `inventory_current` stays, as a cache of the stock.
/// - Seeding: every medication with an inventory gets one adjustment that makes
///   Σ adjustments + Σ refills − Σ taken doses equal its stored stock, so nothing shown
///   changes. Its id is the medication's (another table, so another record). A migration
///   cannot append to the (audit-chained) change log, so it leaves the mark
///   `stock ledger seeds unlogged` in `medvault_metadata`; the sync engine's next seal
///   logs the seeds first (`MedicationStockStore.logSeeds`), so they travel like any
///   adjustment.
///
/// Frozen: its SQL is a literal.
enum MedicationStockLedgerSchema {
    static func createStockLedger(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE medication ADD COLUMN inventory_declared INTEGER;
            UPDATE medication SET inventory_declared = inventory_current;

            CREATE TABLE medication_stock_adjustment (
                rowid INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                medication_id BLOB NOT NULL REFERENCES medication(id),
                patient_id BLOB NOT NULL,
                delta INTEGER NOT NULL,
                recorded_at INTEGER NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1)
            );
            CREATE INDEX medication_stock_adjustment_by_medication
                ON medication_stock_adjustment(medication_id);
            CREATE TRIGGER medication_stock_adjustment_no_update BEFORE UPDATE ON medication_stock_adjustment
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a stock adjustment cannot change');
            END;
            CREATE TRIGGER medication_stock_adjustment_no_delete BEFORE DELETE ON medication_stock_adjustment
            BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a stock adjustment cannot be deleted');
            END;

            INSERT INTO medication_stock_adjustment (id, medication_id, patient_id, delta, recorded_at, version)
            SELECT id, id, patient_id, delta, updated_at, 1 FROM (
                SELECT m.id, m.patient_id, m.updated_at,
                       m.inventory_current
                       - (SELECT TOTAL(r.quantity) FROM medication_refill r WHERE r.medication_id = m.id)
                       + (SELECT TOTAL(COALESCE(d.amount, m.dosage_amount)) FROM dose_log d
                          WHERE d.medication_id = m.id AND d.status IN ('taken', 'late')) AS delta
                FROM medication m WHERE m.inventory_current IS NOT NULL
            ) WHERE delta <> 0;
            INSERT INTO medvault_metadata (key, value)
            SELECT 'stock ledger seeds unlogged', 1 WHERE EXISTS (SELECT 1 FROM medication_stock_adjustment);
            """)
    }
}
