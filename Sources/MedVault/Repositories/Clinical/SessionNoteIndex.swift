import Foundation
import MedVaultCore

/// The full-text index of sessions' clinical text (`session_note_search`, see
/// `SessionNoteSearchSchema`), and the search that reads it.
///
/// A session's document holds its chief complaint, notes and treatment plan and its
/// addenda's reasons and texts. Triggers follow changed texts and deleted sessions;
/// every path that inserts a session or an addendum (the repositories, sync, import)
/// calls ``indexSession(_:in:)`` or ``reindexSession(ofAddendum:in:)`` in its transaction.
///
/// A search matches a session when every folded word of the query is a prefix of a
/// word of its document (case- and accent-insensitive), the rule of `SearchText` and of
/// the in-memory repository. The query reaches FTS4 as `word*` terms built from folded
/// tokens, which hold only letters and digits, and bound as a value: nothing typed is
/// FTS syntax.
enum SessionNoteIndex {
    static let insertDocument = "INSERT INTO session_note_document (session_id) VALUES (?)"
    static let insertText = """
        INSERT INTO session_note_search (docid, body) SELECT ?, body FROM session_note_text WHERE session_id = ?
        """
    static let refreshForAddendum = """
        UPDATE session_note_search SET body = (SELECT t.body FROM session_note_text t \
        JOIN session_addendum a ON a.session_id = t.session_id WHERE a.id = ?1) \
        WHERE docid = (SELECT d.docid FROM session_note_document d \
        JOIN session_addendum a ON a.session_id = d.session_id WHERE a.id = ?1)
        """

    /// Indexes the session `id`, just inserted.
    static func indexSession(_ id: UUID, in db: DatabaseConnection) throws {
        try db.execute(insertDocument, [id.vaultValue])
        try db.execute(insertText, [.integer(db.lastInsertedRowID), id.vaultValue])
    }

    /// Indexes again the session of the addendum `id`, just inserted.
    static func reindexSession(ofAddendum id: UUID, in db: DatabaseConnection) throws {
        try db.execute(refreshForAddendum, [id.vaultValue])
    }

    /// Indexes a record another path inserted without its repository (sync, import):
    /// a session, or an addendum's session; any other table has nothing to index.
    static func indexInserted(_ table: VaultTable, id: UUID, in db: DatabaseConnection) throws {
        if table == .clinicalSession {
            try indexSession(id, in: db)
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
    private static let patientScope = " AND s.patient_id = ?"
    private static let afterCursor = " AND s.date_ms <= ? AND (s.date_ms < ? OR s.id < ?)"
    private static let order = " ORDER BY s.date_ms DESC, s.id DESC LIMIT ?"

    /// Up to `limit` sessions matching `query`, newest first, after `cursor`; those of
    /// `patientID` only when given.
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
        var sql = matching
        var arguments: [VaultValue] = [.text(match)]
        if let patientID {
            sql += patientScope
            arguments.append(patientID.vaultValue)
        }
        if let cursor {
            sql += afterCursor
            let date = VaultValue.integer(cursor.dateMilliseconds)
            arguments += [date, date, cursor.id.vaultValue]
        }
        arguments.append(ClinicalSQL.limitAndOne(limit))
        let rows = try db.fetchAll(sql + order, arguments) { try ClinicalRows.session($0) }
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map(SessionHistoryCursor.init(after:)) : nil
        return SessionSearchPage(sessions: page, nextCursor: next)
    }
}
