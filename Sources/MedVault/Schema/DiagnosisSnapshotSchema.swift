import Foundation
import MedVaultCore

/// Migration "shared diagnosis snapshots" (issue #36, item 6): each distinct ICD-11
/// snapshot is stored once, and the diagnoses that record it point to it.
///
/// Before it, every `diagnosis` row repeated its whole snapshot (code, English and
/// Spanish titles, entity URI, release): about 135 of its 175 bytes, 13 % of a full
/// clinic's file. A clinic records a few hundred distinct categories.
///
/// - `icd11_snapshot`: one row per distinct (release, code, URI, title, Spanish title),
///   never updated, deleted or replaced (`INSERT OR REPLACE` would otherwise rewrite
///   every diagnosis that recorded it at once). Not the catalogue cache (`icd11_cache`):
///   the cache may be refreshed, a recorded snapshot never changes. A snapshot is added
///   with the diagnosis that first records it, atomically (`DiagnosisStorage`), and a
///   diagnosis is never deleted, so no snapshot is left without one.
/// - `diagnosis_row`: a diagnosis without its snapshot, with `snapshot_id` instead.
///   The medical-record rules live on it: id, session, date and snapshot fixed, never
///   deleted, clinical notes of a signed session kept.
/// - `diagnosis`: a view with exactly the columns, in exactly the order, the table had.
///   Every reader (repositories, the audit trail, sync's column-level record state,
///   `Vault.info()`) reads it unchanged, so the sync wire format and older devices are
///   unaffected. Its `INSTEAD OF` triggers keep the table's behaviour for raw SQL:
///   an insert finds or adds the snapshot; an update of the snapshot's columns, the id,
///   the session or the date is refused as before; a delete is refused.
///
/// MedVault's own inserts (repositories, sync) bypass the view's insert trigger and
/// write the two tables directly (`DiagnosisStorage`): any trigger for INSERT makes
/// SQLite journal every page a statement modifies (see `InsertCheckSchema`).
///
/// The copy keeps every diagnosis: each row joins exactly the one snapshot `DISTINCT`
/// made of its own five values (`=` on the four `NOT NULL` text columns, `IS` on the
/// Spanish title), and any constraint failure aborts the migration, which then changes
/// nothing. `DiagnosisSnapshotTests` compares every column of every row before and after.
///
/// An app's table with a foreign key to `diagnosis`, or an app's index or trigger on it,
/// would not survive the table's replacement (the drop deletes the rows a cascade
/// follows, or fails on a reference; it drops indexes and triggers): the migration then
/// refuses with `invalidArgument` and changes nothing. An app references
/// `diagnosis_row(id)` instead (docs/storage.md).
///
/// Frozen: its SQL is a literal.
enum DiagnosisSnapshotSchema {
    static func shareSnapshots(_ db: DatabaseConnection) throws {
        try refuseAppDependencies(db)
        try db.executeScript("""
            CREATE TABLE icd11_snapshot (
                id INTEGER PRIMARY KEY,
                release_version TEXT NOT NULL,
                code TEXT NOT NULL,
                uri TEXT NOT NULL,
                title TEXT NOT NULL,
                title_es TEXT
            );
            CREATE UNIQUE INDEX icd11_snapshot_by_value ON icd11_snapshot(release_version, code, uri, title, title_es);
            CREATE TRIGGER icd11_snapshot_fixed BEFORE UPDATE ON icd11_snapshot BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
            END;
            CREATE TRIGGER icd11_snapshot_kept BEFORE DELETE ON icd11_snapshot BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
            END;
            INSERT INTO icd11_snapshot (release_version, code, uri, title, title_es)
                SELECT DISTINCT release_version, code, uri, title, title_es FROM diagnosis;
            CREATE TRIGGER icd11_snapshot_not_replaced BEFORE INSERT ON icd11_snapshot
            WHEN EXISTS (SELECT 1 FROM icd11_snapshot WHERE id = NEW.id
                         OR (release_version = NEW.release_version AND code = NEW.code AND uri = NEW.uri
                             AND title = NEW.title AND title_es IS NEW.title_es)) BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
            END;

            CREATE TABLE diagnosis_row (
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                session_id BLOB NOT NULL REFERENCES clinical_session(id),
                snapshot_id INTEGER NOT NULL REFERENCES icd11_snapshot(id),
                diagnosis_type TEXT NOT NULL,
                severity TEXT,
                diagnosed_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL,
                clinical_notes TEXT
            );
            INSERT INTO diagnosis_row (id, session_id, snapshot_id, diagnosis_type, severity, diagnosed_at,
                                       created_at, updated_at, version, clinical_notes)
                SELECT d.id, d.session_id, s.id, d.diagnosis_type, d.severity, d.diagnosed_at,
                       d.created_at, d.updated_at, d.version, d.clinical_notes
                FROM diagnosis d JOIN icd11_snapshot s
                    ON s.release_version = d.release_version AND s.code = d.code AND s.uri = d.uri
                    AND s.title = d.title AND s.title_es IS d.title_es
                ORDER BY d.rowid;
            DROP TABLE diagnosis;
            CREATE INDEX diagnosis_by_session ON diagnosis_row(session_id, diagnosed_at, id);
            CREATE TRIGGER diagnosis_row_fixed
            BEFORE UPDATE OF id, session_id, snapshot_id, diagnosed_at ON diagnosis_row BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis keeps its session, date and snapshot');
            END;
            CREATE TRIGGER diagnosis_row_never_deleted BEFORE DELETE ON diagnosis_row BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis is part of the medical record');
            END;
            CREATE TRIGGER diagnosis_row_signed_notes BEFORE UPDATE OF clinical_notes ON diagnosis_row
            WHEN NEW.clinical_notes IS NOT OLD.clinical_notes
                AND EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.session_id) BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signed session''s content never changes');
            END;

            CREATE VIEW diagnosis AS
                SELECT d.id AS id, d.session_id AS session_id, s.code AS code, s.title AS title,
                       s.title_es AS title_es, s.uri AS uri, s.release_version AS release_version,
                       d.diagnosis_type AS diagnosis_type, d.severity AS severity, d.diagnosed_at AS diagnosed_at,
                       d.created_at AS created_at, d.updated_at AS updated_at, d.version AS version,
                       d.clinical_notes AS clinical_notes
                FROM diagnosis_row d JOIN icd11_snapshot s ON s.id = d.snapshot_id;
            CREATE TRIGGER diagnosis_insert INSTEAD OF INSERT ON diagnosis BEGIN
                INSERT INTO icd11_snapshot (release_version, code, uri, title, title_es)
                    SELECT NEW.release_version, NEW.code, NEW.uri, NEW.title, NEW.title_es
                    WHERE NOT EXISTS (SELECT 1 FROM icd11_snapshot WHERE release_version = NEW.release_version
                        AND code = NEW.code AND uri = NEW.uri AND title = NEW.title AND title_es IS NEW.title_es);
                INSERT INTO diagnosis_row (id, session_id, snapshot_id, diagnosis_type, severity, diagnosed_at,
                                           created_at, updated_at, version, clinical_notes)
                VALUES (NEW.id, NEW.session_id,
                        (SELECT id FROM icd11_snapshot WHERE release_version = NEW.release_version
                            AND code = NEW.code AND uri = NEW.uri AND title = NEW.title AND title_es IS NEW.title_es),
                        NEW.diagnosis_type, NEW.severity, NEW.diagnosed_at,
                        NEW.created_at, NEW.updated_at, NEW.version, NEW.clinical_notes);
            END;
            -- SQLite fires the newest trigger first: the refusals, in the table's order
            -- (its date and session, then its snapshot), before the update of the rest.
            CREATE TRIGGER diagnosis_update
            INSTEAD OF UPDATE OF diagnosis_type, severity, created_at, updated_at, version, clinical_notes
            ON diagnosis BEGIN
                UPDATE diagnosis_row SET diagnosis_type = NEW.diagnosis_type, severity = NEW.severity,
                    created_at = NEW.created_at, updated_at = NEW.updated_at, version = NEW.version,
                    clinical_notes = NEW.clinical_notes
                WHERE id = OLD.id;
            END;
            CREATE TRIGGER diagnosis_snapshot_immutable
            INSTEAD OF UPDATE OF code, title, title_es, uri, release_version ON diagnosis BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
            END;
            CREATE TRIGGER diagnosis_fixed INSTEAD OF UPDATE OF id, session_id, diagnosed_at ON diagnosis BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis keeps its session and date');
            END;
            CREATE TRIGGER diagnosis_never_deleted INSTEAD OF DELETE ON diagnosis BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis is part of the medical record');
            END;
            """)
    }

    /// MedVault's own indexes and triggers on `diagnosis` before this migration.
    private static let ownObjects: Set<String> = [
        "sqlite_autoindex_diagnosis_1", "diagnosis_by_session", "diagnosis_fixed", "diagnosis_never_deleted",
        "diagnosis_signed_notes", "diagnosis_snapshot_immutable",
    ]

    /// Throws `invalidArgument` when an app's table references `diagnosis` by a foreign
    /// key, or an app's index or trigger is on it.
    private static func refuseAppDependencies(_ db: DatabaseConnection) throws {
        let attached = try db.fetchAll("""
            SELECT name FROM sqlite_master WHERE tbl_name = 'diagnosis' AND type IN ('index', 'trigger')
            """) { $0.text(at: 0) }
        let tables = try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(at: 0) }
        var referencing = false
        for table in tables where !referencing {
            // PRAGMA foreign_key_list: id, seq, table, from, to, …
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            referencing = try db.fetchAll("PRAGMA foreign_key_list(\(quoted))") { $0.text(at: 2) }
                .contains { $0.lowercased() == "diagnosis" }
        }
        guard !referencing, Set(attached).isSubset(of: ownObjects) else {
            throw MedVaultError(.invalidArgument, field: "appMigrations",
                                reason: "an app's table, index or trigger depends on the diagnosis table, which this "
                                    + "version replaces with a view; nothing was changed (see docs/storage.md)")
        }
    }
}
