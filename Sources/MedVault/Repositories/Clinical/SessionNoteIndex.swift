import Foundation
import MedVaultCore

/// The full-text index of sessions' clinical text (`session_note_search`, see
/// `SessionNoteSearchSchema`), and the search that reads it.
///
/// A session's document is the folded words (`SearchText.tokens(of:)`) of its chief
/// complaint, notes and treatment plan and its addenda's reasons and texts. A trigger
/// removes a deleted session's document; every path that writes a session's text or an
/// addendum (the repositories, sync, import) calls ``index(_:in:)``,
/// ``reindexSession(_:in:)`` or ``indexWritten(_:id:changedColumns:in:)`` in its
/// transaction.
///
/// A search matches a session when every folded word of the query is a prefix of a
/// word of its document, the rule of `SearchText` and of the in-memory repository. The
/// query reaches FTS4 as `word*` terms built from folded tokens, which hold only
/// letters and digits, and bound as a value: nothing typed is FTS syntax.
enum SessionNoteIndex {
    static let insertDocument = "INSERT INTO session_note_document (session_id, date_ms) VALUES (?, ?)"
    static let insertWords = "INSERT INTO session_note_search (docid, words) VALUES (?, ?)"
    static let updateWords = "UPDATE session_note_search SET words = ? WHERE docid = ?"
    static let documentOfSession = "SELECT docid FROM session_note_document WHERE session_id = ?"
    static let sessionOfAddendum = "SELECT session_id FROM session_addendum WHERE id = ?"
    /// A session's texts and its addenda's, in document order.
    static let texts = """
        SELECT s.chief_complaint, s.notes, s.treatment_plan, \
        (SELECT group_concat(a.reason || char(10) || a.text, char(10)) FROM session_addendum a \
        WHERE a.session_id = s.id), s.date_ms FROM clinical_session s WHERE s.id = ?
        """

    /// The document of texts: their distinct folded words, in order of first use,
    /// separated by spaces.
    ///
    /// Each word once: a search's terms are prefixes, all required, never phrases or
    /// proximity (``FullTextQuery``), so a repeated word matches nothing more; it would
    /// only lengthen FTS4's copy of the document and its position lists (issue #36,
    /// item 6: 27 % of the copy's bytes in W1's notes). Documents written before this
    /// keep their repeats and match by the same rule.
    ///
    /// Built from the tokens' bytes (`SearchText.forEachToken`), with no `String` per
    /// word: this runs for every session written, and a 600-byte note has about a
    /// hundred words.
    static func words(of texts: [String]) -> String {
        // By bytes, as FTS4 compares terms: `String`'s equality would merge canonically
        // equivalent spellings, and drop one that a query spelled the other way finds.
        // Sized for the texts (a word and its separator take a few bytes at least), so
        // that neither grows word by word.
        let bytes = texts.reduce(0) { $0 + $1.utf8.count }
        var seenShort = Set<ShortWord>(minimumCapacity: bytes / 6)
        var seenLong = Set<LongWord>()
        var document: [UInt8] = []
        document.reserveCapacity(bytes)
        for text in texts {
            SearchText.forEachToken(of: text) { word in
                let isNew = word.count <= ShortWord.capacity ? seenShort.insert(ShortWord(word)).inserted
                    : seenLong.insert(LongWord(bytes: Array(word))).inserted
                guard isNew else { return }
                if !document.isEmpty { document.append(0x20) }
                document.append(contentsOf: word)
            }
        }
        return String(decoding: document, as: UTF8.self)
    }

    /// A word of at most 16 bytes, zero-padded into two integers: compared and hashed
    /// with no allocation. The padding is unambiguous because no word holds a 0 byte
    /// (a folded token is letters and digits, and UTF-8 uses 0 only for U+0000).
    private struct ShortWord: Hashable {
        static let capacity = 16
        let low: UInt64
        let high: UInt64

        init(_ word: UnsafeBufferPointer<UInt8>) {
            var packed: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &packed) { $0.copyMemory(from: UnsafeRawBufferPointer(word)) }
            (low, high) = packed
        }
    }

    /// A longer word, compared by its bytes and hashed in one call (`[UInt8]`'s own
    /// hashing feeds the hasher a byte at a time).
    private struct LongWord: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// The document of the stored session `id` and its date, or `nil` when there is no
    /// such session.
    private static func words(ofSession id: UUID, in db: DatabaseConnection) throws -> (String, Int64)? {
        try db.fetchOne(texts, [id.vaultValue]) { row in
            (words(of: (0..<4).compactMap { row.isNull(at: $0) ? nil : row.text(at: $0) }), row.int64(at: 4))
        }
    }

    /// The session columns whose text a document holds.
    static let textColumns: Set<String> = ["chief_complaint", "notes", "treatment_plan"]

    /// Indexes `session`, just inserted (it has no addendum yet).
    static func index(_ session: ClinicalSession, in db: DatabaseConnection) throws {
        try insert(words(of: [session.chiefComplaint, session.notes, session.treatmentPlan].compactMap { $0 }),
                   of: session.id, dateMs: session.date.millisecondsSince1970, in: db)
    }

    /// Indexes the stored session `id`, which has no document.
    private static func indexSession(_ id: UUID, in db: DatabaseConnection) throws {
        guard let (words, dateMs) = try words(ofSession: id, in: db) else { return }
        try insert(words, of: id, dateMs: dateMs, in: db)
    }

    private static func insert(_ words: String, of id: UUID, dateMs: Int64, in db: DatabaseConnection) throws {
        try db.execute(insertDocument, [id.vaultValue, .integer(dateMs)])
        try db.execute(insertWords, [.integer(db.lastInsertedRowID), .text(words)])
    }

    /// Indexes the stored session `id` again (its text changed, or an addendum was
    /// added); indexes it when it has no document yet.
    static func reindexSession(_ id: UUID, in db: DatabaseConnection) throws {
        guard let docid = try db.fetchOne(documentOfSession, [id.vaultValue], { $0.int64(at: 0) }) else {
            return try indexSession(id, in: db)
        }
        guard let (words, _) = try words(ofSession: id, in: db) else { return }
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
            guard let changedColumns else {
                // Just inserted: no document can exist (a deleted session's went with it).
                return try indexSession(id, in: db)
            }
            guard changedColumns.contains(where: textColumns.contains) else { return }
            try reindexSession(id, in: db)
        } else if table == .sessionAddendum {
            try reindexSession(ofAddendum: id, in: db)
        }
    }

    // MARK: - Searching

    /// At most this many matches are sorted; beyond, the search walks documents newest
    /// first instead.
    static let sortedMatchesLimit = 256
    private static let probe = "SELECT docid FROM session_note_search WHERE session_note_search MATCH ? LIMIT ?"
    /// The matching documents sorted in history order, cut to the page: one small-row
    /// lookup per match, the session rows read for the page only.
    private static let sortedPage = """
        SELECT d.session_id FROM session_note_search f JOIN session_note_document d ON d.docid = f.docid \
        WHERE session_note_search MATCH ?%@ ORDER BY d.date_ms DESC, d.session_id DESC LIMIT ?
        """
    /// Documents newest first through their date index, each checked against the set
    /// of matches (built once), until the page is full.
    private static let walkedPage = """
        SELECT d.session_id FROM session_note_document d INDEXED BY session_note_document_recent \
        WHERE d.docid IN (SELECT docid FROM session_note_search WHERE session_note_search MATCH ?)%@ \
        ORDER BY d.date_ms DESC, d.session_id DESC LIMIT ?
        """
    private static let documentAfterCursor = " AND d.date_ms <= ? AND (d.date_ms < ? OR d.session_id < ?)"
    private static let sessionsOfPage = """
        SELECT \(ClinicalRows.SessionColumn.selection) FROM clinical_session WHERE id IN (%@) \
        ORDER BY date_ms DESC, id DESC
        """
    private static let afterCursor = " AND s.date_ms <= ? AND (s.date_ms < ? OR s.id < ?)"
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
        let tokens = SearchText.queryTokens(of: query)
        guard let match = FullTextQuery.matchExpression(tokens: tokens) else { return SessionSearchPage(sessions: [], nextCursor: nil) }
        var cursorArguments: [VaultValue] = []
        if let cursor {
            let date = VaultValue.integer(cursor.dateMilliseconds)
            cursorArguments = [date, date, cursor.id.vaultValue]
        }
        // One more than the page, to know whether a next page exists.
        let wanted = limit < Int.max ? limit + 1 : limit
        let rows: [ClinicalSession]
        if let patientID {
            rows = try scan(patientID, tokens: tokens, cursorArguments: cursorArguments,
                            wanted: wanted, in: db)
        } else {
            rows = try practice(match, cursorArguments: cursorArguments, wanted: wanted, in: db)
        }
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map(SessionHistoryCursor.init(after:)) : nil
        return SessionSearchPage(sessions: page, nextCursor: next)
    }

    /// The first `wanted` sessions of the practice (after the cursor) whose document
    /// matches `match`, newest first.
    ///
    /// A probe reads up to ``sortedMatchesLimit`` + 1 matches. When that is all of them
    /// (a rare word: the common case of a search), they are sorted; otherwise (a word in
    /// many sessions) the documents are walked newest first and each is checked against
    /// the matches, which the page fills quickly. Either way the cost follows the smaller
    /// of the matches and the sessions walked before the page is full; `walkAbove`
    /// overrides the limit (tests run both plans on the same data).
    static func practice(_ match: String, cursorArguments: [VaultValue], wanted: Int,
                         walkAbove: Int = sortedMatchesLimit, in db: DatabaseConnection) throws -> [ClinicalSession] {
        var probed = 0
        try db.forEachRow(probe, [.text(match), .integer(Int64(walkAbove) + 1)]) { _ in
            probed += 1
            return true
        }
        let template = probed > walkAbove ? walkedPage : sortedPage
        let sql = String(format: template, cursorArguments.isEmpty ? "" : documentAfterCursor)
        let ids = try db.fetchAll(sql, [.text(match)] + cursorArguments + [.integer(Int64(wanted))]) {
            VaultValue.blob($0.blob(at: 0))
        }
        // In chunks under SQLite 3.15's 999 bound parameters; the chunks come in
        // order, so their rows do.
        return try stride(from: 0, to: ids.count, by: 500).flatMap { start in
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            return try db.fetchAll(String(format: sessionsOfPage, placeholders), chunk) { try ClinicalRows.session($0) }
        }
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
