/// Migration "session note search" (issue #38): a full-text index of each session's
/// clinical text — chief complaint, notes, treatment plan, and its addenda's reasons and
/// texts — inside the encrypted database.
///
/// - `session_note_search` is a plain FTS4 table (`unicode61`, `remove_diacritics=1`: the
///   folding `SearchText` mirrors) holding one document per session, the text of
///   `session_note_text`. Plain, not external-content: FTS4 removes a document's terms
///   by re-reading the text it indexed, and only its own copy is sure to be that text.
/// - `session_note_document` gives each session its document's docid, an explicit
///   `INTEGER PRIMARY KEY`: SQLite documents that `VACUUM` may change an implicit rowid
///   such as `clinical_session`'s, never an explicit one, and `sqlcipher_export`
///   (backups) copies it as a column.
/// - A changed text or a deleted session updates the index by trigger, in the writing
///   statement (those statements already run triggers). A new session, and a new
///   addendum, are indexed by the code that inserts them (`SessionNoteIndex`), not by
///   an insert trigger: an insert trigger makes every insert write a statement journal
///   (see `InsertCheckSchema`).
///
/// Every document is a copy of clinical text: the index lives in the same encrypted
/// pages as the records, and secure delete overwrites what it frees.
///
/// Frozen: its SQL is a literal; the backfill indexes the sessions stored before it.
enum SessionNoteSearchSchema {
    static func createNoteSearch(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE session_note_document (
                docid INTEGER PRIMARY KEY,
                session_id BLOB NOT NULL UNIQUE CHECK (length(session_id) = 16)
            );
            CREATE VIRTUAL TABLE session_note_search USING fts4(body, tokenize=unicode61 "remove_diacritics=1");
            -- The text of a session's document: its three texts, then every addendum.
            CREATE VIEW session_note_text AS
            SELECT s.id AS session_id,
                   coalesce(s.chief_complaint, '') || char(10) || coalesce(s.notes, '') || char(10)
                   || coalesce(s.treatment_plan, '') || char(10)
                   || coalesce((SELECT group_concat(a.reason || char(10) || a.text, char(10))
                                FROM session_addendum a WHERE a.session_id = s.id), '') AS body
            FROM clinical_session s;
            CREATE TRIGGER session_note_search_update
            AFTER UPDATE OF chief_complaint, notes, treatment_plan ON clinical_session
            WHEN NEW.chief_complaint IS NOT OLD.chief_complaint OR NEW.notes IS NOT OLD.notes
                 OR NEW.treatment_plan IS NOT OLD.treatment_plan
            BEGIN
                UPDATE session_note_search SET body = (SELECT body FROM session_note_text WHERE session_id = NEW.id)
                WHERE docid = (SELECT docid FROM session_note_document WHERE session_id = NEW.id);
            END;
            CREATE TRIGGER session_note_search_delete AFTER DELETE ON clinical_session BEGIN
                DELETE FROM session_note_search
                WHERE docid = (SELECT docid FROM session_note_document WHERE session_id = OLD.id);
                DELETE FROM session_note_document WHERE session_id = OLD.id;
            END;
            INSERT INTO session_note_document (session_id) SELECT id FROM clinical_session ORDER BY rowid;
            INSERT INTO session_note_search (docid, body)
            SELECT d.docid, t.body FROM session_note_document d JOIN session_note_text t ON t.session_id = d.session_id;
            """)
    }
}
