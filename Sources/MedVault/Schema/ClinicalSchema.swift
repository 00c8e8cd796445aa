/// Migration 1, "clinical records": professional, patients, sessions, diagnoses,
/// attachments, and the first patient search index. Frozen: released vaults applied
/// exactly this SQL, so it is never edited; later changes are new migrations.
///
/// Conventions: instants are integer milliseconds UTC; calendar dates ISO `YYYY-MM-DD`
/// text; identifiers 16-byte blobs (their byte order is the order of their upper-case
/// `uuidString`); categories their raw string values, unknown values kept as they are.
/// Long free texts come last in each table, so reading the short columns of a row does
/// not touch overflow pages.
///
/// The rules that protect the medical record are enforced here as well as in Swift:
/// triggers refuse to delete a patient, a diagnosis or a completed session, to reopen a
/// completed session, to move a session to another patient, and to change a diagnosis's
/// ICD-11 snapshot, session or date (migration 5, ``InsertCheckSchema``, later dropped
/// the two insert triggers; the repositories check a new row's parent). Their messages (`medvault: <code>: <fixed text>`)
/// become `MedVaultError`s with that code.
enum ClinicalSchema {
    static func createClinicalRecords(_ db: DatabaseConnection) throws {
        try db.executeScript(professional + patient + session + diagnosis + attachment)
    }

    private static let professional = """
        CREATE TABLE professional (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),  -- one per vault
            id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
            full_name TEXT NOT NULL,
            license_number TEXT NOT NULL,
            specialty TEXT NOT NULL,
            email TEXT,
            preferred_language TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            version INTEGER NOT NULL
        );

        """

    // `patient_search`, the FTS4 table below, is no longer used: migration 3
    // (``PatientSearchSchema``) replaced it by `patient_search_token` and drops it. It
    // stays here because migration 1 is frozen: every vault made before migration 3
    // was created by exactly this SQL, and a new vault replays the same history.
    private static let patient = """
        CREATE TABLE patient (
            rowid INTEGER PRIMARY KEY,  -- the search index's docid
            id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
            first_name TEXT NOT NULL,
            last_name TEXT NOT NULL,
            sort_key TEXT NOT NULL,
            date_of_birth TEXT NOT NULL,
            biological_sex TEXT,
            national_id TEXT,
            email TEXT,
            phone_number TEXT,
            address TEXT,
            deleted_at INTEGER,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        -- Lists of active or inactive patients: WHERE (deleted_at IS NULL) = ? ORDER BY sort_key, id.
        CREATE INDEX patient_list ON patient(deleted_at IS NULL, sort_key, id);
        -- Lists of every patient.
        CREATE INDEX patient_order ON patient(sort_key, id);
        -- Search: the folded tokens (SearchText.tokens) of names, national id, email and
        -- phone, docid = patient.rowid. Kept in sync by the repository, in the same
        -- transaction as the patient row.
        CREATE VIRTUAL TABLE patient_search USING fts4(tokens, tokenize=unicode61 "remove_diacritics=1");
        CREATE TRIGGER patient_never_deleted BEFORE DELETE ON patient BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a patient is never deleted, only deactivated');
        END;
        CREATE TRIGGER patient_id_fixed BEFORE UPDATE OF rowid, id ON patient
        WHEN NEW.id IS NOT OLD.id OR NEW.rowid IS NOT OLD.rowid BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a patient keeps its identifier');
        END;

        """

    private static let session = """
        CREATE TABLE clinical_session (
            id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
            patient_id BLOB NOT NULL REFERENCES patient(id),
            date_ms INTEGER NOT NULL,
            type TEXT NOT NULL,
            duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
            status TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            version INTEGER NOT NULL,
            chief_complaint TEXT,
            treatment_plan TEXT,
            notes TEXT
        );
        -- History: WHERE patient_id = ? ORDER BY date_ms DESC, id DESC (scanned backwards).
        CREATE INDEX clinical_session_history ON clinical_session(patient_id, date_ms, id);
        -- Agenda: WHERE date_ms >= ? AND date_ms < ? ORDER BY date_ms, id.
        CREATE INDEX clinical_session_agenda ON clinical_session(date_ms, id);
        -- One lookup answers both rules of a new session, before the id's uniqueness is checked.
        CREATE TRIGGER clinical_session_patient_active BEFORE INSERT ON clinical_session BEGIN
            SELECT CASE (SELECT deleted_at IS NULL FROM patient WHERE id = NEW.patient_id)
                WHEN 1 THEN NULL
                WHEN 0 THEN RAISE(ABORT, 'medvault: validation: the patient is inactive')
                ELSE RAISE(ABORT, 'medvault: notFound: no such patient')
            END;
        END;
        CREATE TRIGGER clinical_session_patient_fixed BEFORE UPDATE OF id, patient_id ON clinical_session
        WHEN NEW.patient_id IS NOT OLD.patient_id OR NEW.id IS NOT OLD.id BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a session cannot move to another patient');
        END;
        CREATE TRIGGER clinical_session_completed_status BEFORE UPDATE OF status ON clinical_session
        WHEN OLD.status = 'completed' AND NEW.status IS NOT 'completed' BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
        END;
        CREATE TRIGGER clinical_session_completed_kept BEFORE DELETE ON clinical_session
        WHEN OLD.status = 'completed' BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
        END;

        """

    private static let diagnosis = """
        CREATE TABLE diagnosis (
            id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
            session_id BLOB NOT NULL REFERENCES clinical_session(id),
            code TEXT NOT NULL,
            title TEXT NOT NULL,
            title_es TEXT,
            uri TEXT NOT NULL,
            release_version TEXT NOT NULL,
            diagnosis_type TEXT NOT NULL,
            severity TEXT,
            diagnosed_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            version INTEGER NOT NULL,
            clinical_notes TEXT
        );
        -- A session's diagnoses (and a patient's, through clinical_session_history).
        CREATE INDEX diagnosis_by_session ON diagnosis(session_id, diagnosed_at, id);
        CREATE TRIGGER diagnosis_session_exists BEFORE INSERT ON diagnosis
        WHEN NOT EXISTS (SELECT 1 FROM clinical_session WHERE id = NEW.session_id) BEGIN
            SELECT RAISE(ABORT, 'medvault: notFound: no such session');
        END;
        CREATE TRIGGER diagnosis_snapshot_immutable
        BEFORE UPDATE OF code, title, title_es, uri, release_version ON diagnosis BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
        END;
        CREATE TRIGGER diagnosis_fixed BEFORE UPDATE OF id, session_id, diagnosed_at ON diagnosis BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis keeps its session and date');
        END;
        CREATE TRIGGER diagnosis_never_deleted BEFORE DELETE ON diagnosis BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis is part of the medical record');
        END;

        """

    /// Attachments are written in stages (see `SQLCipherAttachmentRepository`): the row
    /// is inserted with `is_complete = 0`, chunks are appended in later transactions,
    /// and a last transaction records size and digest and sets `is_complete = 1`.
    /// Readers only ever see complete attachments.
    private static let attachment = """
        CREATE TABLE attachment (
            id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
            session_id BLOB NOT NULL REFERENCES clinical_session(id) ON DELETE CASCADE,
            file_name TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            byte_count INTEGER NOT NULL DEFAULT 0 CHECK (byte_count >= 0),
            sha256 BLOB CHECK (sha256 IS NULL OR length(sha256) = 32),
            is_complete INTEGER NOT NULL DEFAULT 0 CHECK (is_complete IN (0, 1)),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            version INTEGER NOT NULL,
            CHECK (is_complete = 0 OR sha256 IS NOT NULL)
        );
        CREATE INDEX attachment_by_session ON attachment(session_id, created_at, id);
        CREATE TABLE attachment_chunk (
            attachment_id BLOB NOT NULL REFERENCES attachment(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (attachment_id, seq)
        );
        CREATE TRIGGER attachment_session_exists BEFORE INSERT ON attachment
        WHEN NOT EXISTS (SELECT 1 FROM clinical_session WHERE id = NEW.session_id) BEGIN
            SELECT RAISE(ABORT, 'medvault: notFound: no such session');
        END;
        CREATE TRIGGER attachment_completed_session BEFORE DELETE ON attachment
        WHEN OLD.is_complete = 1
            AND (SELECT status FROM clinical_session WHERE id = OLD.session_id) = 'completed' BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
        END;
        CREATE TRIGGER attachment_chunk_sealed BEFORE INSERT ON attachment_chunk
        WHEN (SELECT is_complete FROM attachment WHERE id = NEW.attachment_id) = 1 BEGIN
            SELECT RAISE(ABORT, 'medvault: immutable: a stored attachment never changes');
        END;
        """
}
