/// Migration "session note search" (issue #38): a full-text index of each session's
/// clinical text — chief complaint, notes, treatment plan, and its addenda's reasons and
/// texts — inside the encrypted database.
///
/// - `session_note_search` is a plain FTS4 table holding one document per session: the
///   folded words of that text (`SearchText`'s folding, done in Swift), not the text
///   itself. FTS4's own `unicode61` folding differs from it (it keeps `ß`, `ﬁ`, Greek
///   accents), and the in-memory store and a one-patient search apply `SearchText`: with
///   folded documents and folded queries, every path matches by the same rule.
/// - Plain, not external-content: FTS4 removes a document's terms by re-reading the text
///   it indexed, and only its own copy is sure to be that text.
/// - `session_note_document` gives each session its document's docid, an explicit
///   `INTEGER PRIMARY KEY`: SQLite documents that `VACUUM` may change an implicit rowid
///   such as `clinical_session`'s, never an explicit one, and `sqlcipher_export`
///   (backups) copies it as a column. It copies the session's `date_ms` (a trigger
///   follows a changed date), indexed with the id in history order, so a search across
///   the practice can sort matches, or walk sessions newest first, without reading a
///   session row per match.
/// - A deleted session's document goes by trigger, in the deleting statement (sessions
///   already have delete triggers). New and changed texts are indexed by the code that
///   writes them (`SessionNoteIndex`), since SQL cannot fold them, and not by an insert
///   trigger anyway: an insert trigger makes every insert write a statement journal (see
///   `InsertCheckSchema`).
///
/// Every document is clinical content: the index lives in the same encrypted pages as
/// the records, and secure delete overwrites what it frees.
///
/// Frozen: its SQL is a literal; the backfill folds with `PatientSearchSchema`'s frozen
/// copy of the folding.
enum SessionNoteSearchSchema {
    static func createNoteSearch(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE session_note_document (
                docid INTEGER PRIMARY KEY,
                session_id BLOB NOT NULL UNIQUE CHECK (length(session_id) = 16),
                date_ms INTEGER NOT NULL  -- = clinical_session.date_ms
            );
            CREATE INDEX session_note_document_recent ON session_note_document(date_ms, session_id);
            CREATE TRIGGER session_note_document_date AFTER UPDATE OF date_ms ON clinical_session
            WHEN NEW.date_ms IS NOT OLD.date_ms BEGIN
                UPDATE session_note_document SET date_ms = NEW.date_ms WHERE session_id = NEW.id;
            END;
            CREATE VIRTUAL TABLE session_note_search USING fts4(words, tokenize=unicode61 "remove_diacritics=1");
            CREATE TRIGGER session_note_search_delete AFTER DELETE ON clinical_session BEGIN
                DELETE FROM session_note_search
                WHERE docid = (SELECT docid FROM session_note_document WHERE session_id = OLD.id);
                DELETE FROM session_note_document WHERE session_id = OLD.id;
            END;
            """)
        // Streamed: the rows written go to other tables than the one being read.
        try db.forEachRow("""
            SELECT s.id, s.chief_complaint, s.notes, s.treatment_plan,
                   (SELECT group_concat(a.reason || char(10) || a.text, char(10))
                    FROM session_addendum a WHERE a.session_id = s.id), s.date_ms
            FROM clinical_session s ORDER BY s.rowid
            """) { row in
            let texts = (1...4).compactMap { row.isNull(at: $0) ? nil : row.text(at: $0) }
            let words = texts.flatMap(PatientSearchSchema.foldedTokens(of:)).joined(separator: " ")
            try db.execute("INSERT INTO session_note_document (session_id, date_ms) VALUES (?, ?)",
                           [.blob(row.blob(at: 0)), .integer(row.int64(at: 5))])
            try db.execute("INSERT INTO session_note_search (docid, words) VALUES (?, ?)",
                           [.integer(db.lastInsertedRowID), .text(words)])
            return true
        }
    }
}
