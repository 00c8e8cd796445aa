/// Migration "session signatures and addenda" (issue #18): the signature of a session's
/// clinical content, its append-only addenda, and the vault's "sign before completing"
/// setting.
///
/// The medical-record rules are UPDATE and DELETE triggers only, which inserts never
/// fire (an INSERT trigger would make every insert write an encrypted statement
/// journal: see `InsertCheckSchema`):
/// - a signature and an addendum are never changed nor deleted;
/// - a signed session's chief complaint, notes and treatment plan never change, and it
///   is never deleted; a diagnosis of a signed session keeps its clinical notes;
/// - with `require_before_completion` set, an unsigned session is not marked completed;
///   the setting's one row is never deleted (that would turn it off silently).
///
/// What only the repositories check (inserts): a new diagnosis for a signed session, a
/// session created completed when signing is required. A diagnosis inserted into a
/// signed session by raw SQL makes its signature fail verification.
///
/// Frozen: its SQL is a literal.
enum SigningSchema {
    static func createSignatures(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE session_signature (
                session_id BLOB NOT NULL UNIQUE REFERENCES clinical_session(id),
                professional_id BLOB NOT NULL CHECK (length(professional_id) = 16),
                professional_name TEXT NOT NULL,
                license_number TEXT NOT NULL,
                signed_at INTEGER NOT NULL,
                content_sha256 TEXT NOT NULL CHECK (length(content_sha256) = 64),
                encoding_version INTEGER NOT NULL
            );
            CREATE TRIGGER session_signature_fixed BEFORE UPDATE ON session_signature BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signature never changes');
            END;
            CREATE TRIGGER session_signature_kept BEFORE DELETE ON session_signature BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signature is part of the medical record');
            END;

            CREATE TABLE session_addendum (
                position INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                session_id BLOB NOT NULL REFERENCES clinical_session(id),
                author_id BLOB NOT NULL CHECK (length(author_id) = 16),
                author_name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                reason TEXT NOT NULL,
                text TEXT NOT NULL
            );
            -- A session's addenda in the order written.
            CREATE INDEX session_addendum_by_session ON session_addendum(session_id, position);
            CREATE TRIGGER session_addendum_fixed BEFORE UPDATE ON session_addendum BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: an addendum never changes');
            END;
            CREATE TRIGGER session_addendum_kept BEFORE DELETE ON session_addendum BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: an addendum is part of the medical record');
            END;

            CREATE TRIGGER clinical_session_signed_content
            BEFORE UPDATE OF chief_complaint, notes, treatment_plan ON clinical_session
            WHEN (NEW.chief_complaint IS NOT OLD.chief_complaint OR NEW.notes IS NOT OLD.notes
                  OR NEW.treatment_plan IS NOT OLD.treatment_plan)
                AND EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signed session''s content never changes');
            END;
            CREATE TRIGGER clinical_session_signed_kept BEFORE DELETE ON clinical_session
            WHEN EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signed session is part of the medical record');
            END;
            CREATE TRIGGER diagnosis_signed_notes BEFORE UPDATE OF clinical_notes ON diagnosis
            WHEN NEW.clinical_notes IS NOT OLD.clinical_notes
                AND EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.session_id) BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: a signed session''s content never changes');
            END;

            CREATE TABLE signing_policy (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                require_before_completion INTEGER NOT NULL CHECK (require_before_completion IN (0, 1))
            );
            INSERT INTO signing_policy (id, require_before_completion) VALUES (1, 0);
            CREATE TRIGGER signing_policy_kept BEFORE DELETE ON signing_policy BEGIN
                SELECT RAISE(ABORT, 'medvault: immutable: the signing setting is kept; update it instead');
            END;
            CREATE TRIGGER clinical_session_signed_before_completion BEFORE UPDATE OF status ON clinical_session
            WHEN NEW.status = 'completed' AND OLD.status IS NOT 'completed'
                AND (SELECT require_before_completion FROM signing_policy WHERE id = 1) = 1
                AND NOT EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
                SELECT RAISE(ABORT, 'medvault: validation: the session must be signed before it is completed');
            END;
            """)
    }

    /// Migration "professional signatures" (issue #32): each signature's Ed25519 public
    /// key and signature of its attestation (docs/medico-legal.md). `NULL` in both for
    /// signatures made before. Frozen: its SQL is a literal.
    static func addProfessionalSignatures(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            ALTER TABLE session_signature ADD COLUMN signer_public_key BLOB
                CHECK (signer_public_key IS NULL OR length(signer_public_key) = 32);
            ALTER TABLE session_signature ADD COLUMN signature BLOB
                CHECK ((signature IS NULL) = (signer_public_key IS NULL) AND (signature IS NULL OR length(signature) = 64));
            """)
    }
}
