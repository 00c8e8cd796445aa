import Foundation
import MedVaultCore

/// The full-text index of sessions' clinical text (`session_note_search`, see
/// `SessionNoteSearchSchema`), and the search that reads it.
///
/// A session's document is the folded words (`SearchText.tokens(of:)`) of its chief
/// complaint, notes and treatment plan and its addenda's reasons and texts. A trigger
/// removes a deleted session's document; every path that writes a session's text or an
/// addendum (the repositories, sync, import) calls ``indexSession(_:in:)`` or
/// ``reindexSession(_:in:)`` in its transaction.
///
/// A search matches a session when every folded word of the query is a prefix of a
/// word of its document, the rule of `SearchText` and of the in-memory repository. The
/// query reaches FTS4 as `word*` terms built from folded tokens, which hold only
/// letters and digits, and bound as a value: nothing typed is FTS syntax.
enum SessionNoteIndex {
    static let insertDocument = "INSERT INTO session_note_document (session_id) VALUES (?)"
    static let insertWords = "INSERT INTO session_note_search (docid, words) VALUES (?, ?)"
    static let updateWords = "UPDATE session_note_search SET words = ? WHERE docid = ?"
    static let documentOfSession = "SELECT docid FROM session_note_document WHERE session_id = ?"
    static let sessionOfAddendum = "SELECT session_id FROM session_addendum WHERE id = ?"
    /// A session's texts and its addenda's, in document order.
    static let texts = """
        SELECT s.chief_complaint, s.notes, s.treatment_plan, \
        (SELECT group_concat(a.reason || char(10) || a.text, char(10)) FROM session_addendum a \
        WHERE a.session_id = s.id) FROM clinical_session s WHERE s.id = ?
        """

    /// The document of texts: their folded words, separated by spaces.
    static func words(of texts: [String]) -> String {
        texts.flatMap(SearchText.tokens(of:)).joined(separator: " ")
    }

    /// The document of the stored session `id`, or `nil` when there is no such session.
    private static func words(ofSession id: UUID, in db: DatabaseConnection) throws -> String? {
        try db.fetchOne(texts, [id.vaultValue]) { row in
            words(of: (0..<4).compactMap { row.isNull(at: $0) ? nil : row.text(at: $0) })
        }
    }

    /// The session columns whose text a document holds.
    static let textColumns: Set<String> = ["chief_complaint", "notes", "treatment_plan"]

    /// Indexes `session`, just inserted (it has no addendum yet).
    static func index(_ session: ClinicalSession, in db: DatabaseConnection) throws {
        try insert(words(of: [session.chiefComplaint, session.notes, session.treatmentPlan].compactMap { $0 }),
                   of: session.id, in: db)
    }

    /// Indexes the stored session `id`, which has no document.
    private static func indexSession(_ id: UUID, in db: DatabaseConnection) throws {
        guard let words = try words(ofSession: id, in: db) else { return }
        try insert(words, of: id, in: db)
    }

    private static func insert(_ words: String, of id: UUID, in db: DatabaseConnection) throws {
        try db.execute(insertDocument, [id.vaultValue])
        try db.execute(insertWords, [.integer(db.lastInsertedRowID), .text(words)])
    }

    /// Indexes the stored session `id` again (its text changed, or an addendum was
    /// added); indexes it when it has no document yet.
    static func reindexSession(_ id: UUID, in db: DatabaseConnection) throws {
        guard let docid = try db.fetchOne(documentOfSession, [id.vaultValue], { $0.int64(at: 0) }) else {
            return try indexSession(id, in: db)
        }
        guard let words = try words(ofSession: id, in: db) else { return }
        try db.execute(updateWords, [.text(words), .integer(docid)])
    }

    /// Indexes again the session of the addendum `id`, just inserted.
    static func reindexSession(ofAddendum id: UUID, in db: DatabaseConnection) throws {
        guard let sessionID = try db.fetchOne(sessionOfAddendum, [id.vaultValue], { try UUID(row: $0, column: 0) })
        else { return }
        try reindexSession(sessionID, in: db)
    }

    /// Brings the index up to date after sync wrote a row of `table` without its
    /// repository: a session inserted, or changed in `changedColumns` (`nil`: inserted),
    /// or an addendum inserted; any other table has nothing to index.
    static func indexWritten(_ table: VaultTable, id: UUID, changedColumns: [String]? = nil,
                             in db: DatabaseConnection) throws {
        if table == .clinicalSession {
            if let changedColumns, !changedColumns.contains(where: textColumns.contains) { return }
            try reindexSession(id, in: db)
        } else if table == .sessionAddendum {
            try reindexSession(ofAddendum: id, in: db)
        }
    }

    // MARK: - Searching

    private static let matching = """
        SELECT \(ClinicalRows.SessionColumn.selection(alias: "s")) FROM session_note_search f \
        JOIN session_note_document d ON d.docid = f.docid JOIN clinical_session s ON s.id = d.session_id \
        WHERE session_note_search MATCH ?
        """
    private static let afterCursor = " AND s.date_ms <= ? AND (s.date_ms < ? OR s.id < ?)"
    private static let order = " ORDER BY s.date_ms DESC, s.id DESC LIMIT ?"
    /// One patient's sessions newest first, each with its addenda's text (the last column).
    private static let patientSessions = """
        SELECT \(ClinicalRows.SessionColumn.selection(alias: "s")), \
        (SELECT group_concat(a.reason || char(10) || a.text, char(10)) FROM session_addendum a \
        WHERE a.session_id = s.id) FROM clinical_session s WHERE s.patient_id = ?
        """
    private static let addendaColumn = Int32(ClinicalRows.SessionColumn.allCases.count)

    /// Up to `limit` sessions matching `query`, newest first, after `cursor`; those of
    /// `patientID` only when given.
    ///
    /// Across the practice, the index finds the matching documents and their sessions
    /// are sorted: the cost follows the number of matches. Within one patient, the
    /// patient's sessions are read newest first through `clinical_session_history` and
    /// each is matched by `SearchText`'s rule (the one the index's folding mirrors,
    /// checked by the conformance tests), stopping once the page is full: the cost
    /// follows that patient's sessions, not the practice's matches.
    ///
    /// - Throws: `notFound` (field `patientID`) for an unknown patient; `invalidArgument`
    ///   when `limit` < 1.
    static func search(_ query: String, patientID: UUID?, after cursor: SessionHistoryCursor?, limit: Int,
                       in db: DatabaseConnection) throws -> SessionSearchPage {
        try ClinicalSQL.checkLimit(limit)
        if let patientID, try db.fetchOne(SessionHistoryReader.patientExists, [patientID.vaultValue], { _ in true }) == nil {
            throw ClinicalSQL.notFound("patientID")
        }
        guard let match = FullTextQuery.matchExpression(query) else { return SessionSearchPage(sessions: [], nextCursor: nil) }
        var cursorArguments: [VaultValue] = []
        if let cursor {
            let date = VaultValue.integer(cursor.dateMilliseconds)
            cursorArguments = [date, date, cursor.id.vaultValue]
        }
        let rows: [ClinicalSession]
        if let patientID {
            rows = try scan(patientID, tokens: SearchText.tokens(of: query), cursorArguments: cursorArguments,
                            wanted: limit + 1, in: db)
        } else {
            let sql = matching + (cursorArguments.isEmpty ? "" : afterCursor) + order
            rows = try db.fetchAll(sql, [.text(match)] + cursorArguments + [ClinicalSQL.limitAndOne(limit)]) {
                try ClinicalRows.session($0)
            }
        }
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map(SessionHistoryCursor.init(after:)) : nil
        return SessionSearchPage(sessions: page, nextCursor: next)
    }

    /// The first `wanted` sessions of `patientID` (after the cursor) whose text holds
    /// every token of `tokens` as a prefix, newest first.
    private static func scan(_ patientID: UUID, tokens: [String], cursorArguments: [VaultValue], wanted: Int,
                             in db: DatabaseConnection) throws -> [ClinicalSession] {
        let sql = patientSessions + (cursorArguments.isEmpty ? "" : afterCursor) + " ORDER BY s.date_ms DESC, s.id DESC"
        var found: [ClinicalSession] = []
        try db.forEachRow(sql, [patientID.vaultValue] + cursorArguments) { row in
            let session = try ClinicalRows.session(row)
            let addenda = row.isNull(at: addendaColumn) ? nil : row.text(at: addendaColumn)
            let texts = [session.chiefComplaint, session.notes, session.treatmentPlan, addenda].compactMap { $0 }
            if SearchText.matches(queryTokens: tokens, recordTokens: texts.flatMap(SearchText.tokens(of:))) {
                found.append(session)
            }
            return found.count < wanted
        }
        return found
    }
}
