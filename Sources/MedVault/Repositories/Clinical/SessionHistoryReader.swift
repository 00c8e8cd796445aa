import Foundation
import MedVaultCore

/// Reads a page of a patient's history: its sessions, each with its signature, then
/// the diagnoses of the whole page in one query, and its addenda only when one of its
/// sessions has any.
///
/// A page costs two statements as a rule, whatever its size:
/// - the sessions, each joined to its signature (at most one: `session_id` is
///   `UNIQUE`, so the join keeps the history index's order and adds one index probe
///   per session) and with a flag telling whether it has addenda;
/// - the page's diagnoses, found through `clinical_session_history` alone (patient,
///   then the page's (date_ms, id) span, both ends included: a page is a contiguous
///   run of that order, so the span holds exactly its sessions) and joined through
///   their own index.
///
/// The addenda query (the same span) runs only when a flag is set, and the patient
/// check only when the page is empty: a stored session's patient always exists (a
/// session is only inserted for an existing patient, patients are never deleted, and
/// neither identifier can change; the schema's triggers enforce all three).
enum SessionHistoryReader {
    private static let pageColumns = """
        \(ClinicalRows.SessionColumn.selection(alias: "s")), \(SigningRows.SignatureColumn.selection(alias: "g")), \
        EXISTS (SELECT 1 FROM session_addendum a WHERE a.session_id = s.id)
        """
    private static let sessionsWithSignatures = """
        SELECT \(pageColumns) FROM clinical_session s LEFT JOIN session_signature g ON g.session_id = s.id
        """
    static let sessions = """
        \(sessionsWithSignatures) WHERE s.patient_id = ? ORDER BY s.date_ms DESC, s.id DESC LIMIT ?
        """
    /// (date_ms, id) < (?, ?) without row values; the first term bounds the index range.
    static let sessionsAfter = """
        \(sessionsWithSignatures) WHERE s.patient_id = ? AND s.date_ms <= ? AND (s.date_ms < ? OR s.id < ?) \
        ORDER BY s.date_ms DESC, s.id DESC LIMIT ?
        """
    /// Where a row of ``sessions`` has the signature's columns (NULL without one).
    private static let signatureColumn = Int32(ClinicalRows.SessionColumn.allCases.count)
    /// Where a row of ``sessions`` says whether the session has addenda.
    private static let addendaFlagColumn = signatureColumn + Int32(SigningRows.SignatureColumn.allCases.count)
    static let patientExists = "SELECT 1 FROM patient WHERE id = ?"

    /// The sessions of the page: one patient, (date_ms, id) from the last entry's to the
    /// first's, both included (bound by ``entries(of:patientID:in:)``).
    private static let pageSessions = """
        FROM clinical_session s JOIN %@ ON %@.session_id = s.id \
        WHERE s.patient_id = ? AND s.date_ms >= ? AND s.date_ms <= ? \
        AND (s.date_ms > ? OR s.id >= ?) AND (s.date_ms < ? OR s.id <= ?)
        """
    static let pageDiagnoses = """
        SELECT \(ClinicalRows.DiagnosisColumn.selection(alias: "d")) \
        \(String(format: pageSessions, "diagnosis d", "d")) \
        ORDER BY s.date_ms DESC, s.id DESC, d.diagnosed_at, d.id
        """
    static let pageAddenda = """
        SELECT \(SigningRows.AddendumColumn.selection(alias: "a")) \
        \(String(format: pageSessions, "session_addendum a", "a")) ORDER BY a.position
        """

    /// One session of a page, as ``sessions`` reads it.
    private struct PageRow {
        var entry: SessionHistoryEntry
        /// The stored date_ms: the span is bound with the stored integers, never with
        /// a value that went through `Date`.
        let dateMs: Int64
        let hasAddenda: Bool

        init(row: VaultRow) throws {
            entry = SessionHistoryEntry(session: try ClinicalRows.session(row), diagnoses: [])
            if !row.isNull(at: signatureColumn) {
                entry.signature = try SigningRows.signature(row, from: signatureColumn)
            }
            dateMs = row.int64(at: ClinicalRows.SessionColumn.dateMs.rawValue)
            hasAddenda = row.int64(at: addendaFlagColumn) != 0
        }
    }

    /// Up to `limit` sessions of `patientID` after `cursor`, newest first, each with its
    /// diagnoses, signature and addenda, in one read transaction's connection.
    ///
    /// - Throws: `MedVaultError.Code.notFound` when there is no such patient.
    static func page(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int,
                     in db: DatabaseConnection) throws -> SessionHistoryPage {
        let overLimit = VaultValue.integer(Int64(limit) + 1)
        let rows: [PageRow]
        if let cursor {
            let date = VaultValue.integer(cursor.dateMilliseconds)
            rows = try db.fetchAll(sessionsAfter, [patientID.vaultValue, date, date, cursor.id.vaultValue, overLimit],
                                   PageRow.init(row:))
        } else {
            rows = try db.fetchAll(sessions, [patientID.vaultValue, overLimit], PageRow.init(row:))
        }
        if rows.isEmpty, try db.fetchOne(patientExists, [patientID.vaultValue], { _ in true }) == nil {
            throw ClinicalSQL.notFound("patientID")
        }
        let page = rows.prefix(limit)
        let entries = try self.entries(of: Array(page), patientID: patientID, in: db)
        let next = rows.count > limit ? page.last.map { SessionHistoryCursor(after: $0.entry.session) } : nil
        return SessionHistoryPage(entries: entries, nextCursor: next)
    }

    /// `page` (one patient's sessions, newest first, contiguous in history order, each
    /// with its signature) with their diagnoses and addenda, one query each; none for
    /// the addenda when no session has any.
    private static func entries(of page: [PageRow], patientID: UUID,
                                in db: DatabaseConnection) throws -> [SessionHistoryEntry] {
        guard let first = page.first, let last = page.last else { return [] }
        let newest = VaultValue.integer(first.dateMs)
        let oldest = VaultValue.integer(last.dateMs)
        let arguments = [patientID.vaultValue, oldest, newest, oldest, last.entry.session.id.vaultValue, newest,
                         first.entry.session.id.vaultValue]
        var entries = page.map(\.entry)
        var position: [UUID: Int] = [:]
        position.reserveCapacity(page.count)
        for (index, row) in page.enumerated() { position[row.entry.session.id] = index }
        // Rows come session by session, each session's in its own order; a row of a
        // session outside the page cannot match the span, and would be skipped if it did.
        try db.forEachRow(pageDiagnoses, arguments) { row in
            let diagnosis = try ClinicalRows.diagnosis(row)
            if let index = position[diagnosis.sessionID] { entries[index].diagnoses.append(diagnosis) }
            return true
        }
        guard page.contains(where: \.hasAddenda) else { return entries }
        try db.forEachRow(pageAddenda, arguments) { row in
            let addendum = try SigningRows.addendum(row)
            if let index = position[addendum.sessionID] { entries[index].addenda.append(addendum) }
            return true
        }
        return entries
    }
}
