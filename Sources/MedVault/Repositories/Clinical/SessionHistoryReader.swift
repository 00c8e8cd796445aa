import Foundation
import MedVaultCore

/// Reads a page of a patient's history: its sessions, then the diagnoses, signatures
/// and addenda of the whole page in one query each.
///
/// A page of 50 sessions used to cost one query per session for each of the three
/// (151 statements); now it costs four, whatever the page size. The three page-wide
/// queries find the page's sessions through `clinical_session_history` alone
/// (patient, then the page's (date_ms, id) span, both ends included: a page is a
/// contiguous run of that order, so the span holds exactly its sessions) and join each
/// session's rows through their own index, as the per-session queries did.
enum SessionHistoryReader {
    static let sessions = """
        SELECT \(ClinicalRows.SessionColumn.selection) FROM clinical_session WHERE patient_id = ? \
        ORDER BY date_ms DESC, id DESC LIMIT ?
        """
    /// (date_ms, id) < (?, ?) without row values; the first term bounds the index range.
    static let sessionsAfter = """
        SELECT \(ClinicalRows.SessionColumn.selection) FROM clinical_session WHERE patient_id = ? \
        AND date_ms <= ? AND (date_ms < ? OR id < ?) ORDER BY date_ms DESC, id DESC LIMIT ?
        """
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
    static let pageSignatures = """
        SELECT \(SigningRows.SignatureColumn.selection(alias: "g")) \
        \(String(format: pageSessions, "session_signature g", "g"))
        """
    static let pageAddenda = """
        SELECT \(SigningRows.AddendumColumn.selection(alias: "a")) \
        \(String(format: pageSessions, "session_addendum a", "a")) ORDER BY a.position
        """

    /// Up to `limit` sessions of `patientID` after `cursor`, newest first, each with its
    /// diagnoses, signature and addenda, in one read transaction's connection.
    ///
    /// - Throws: `MedVaultError.Code.notFound` when there is no such patient.
    static func page(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int,
                     in db: DatabaseConnection) throws -> SessionHistoryPage {
        guard try db.fetchOne(patientExists, [patientID.vaultValue], { _ in true }) != nil else {
            throw ClinicalSQL.notFound("patientID")
        }
        let overLimit = ClinicalSQL.limitAndOne(limit)
        // Each session with its stored date_ms: the span is bound with the stored
        // integers, never with a value that went through `Date`.
        let decode = { (row: VaultRow) in
            (session: try ClinicalRows.session(row), dateMs: row.int64(at: ClinicalRows.SessionColumn.dateMs.rawValue))
        }
        let rows: [(session: ClinicalSession, dateMs: Int64)]
        if let cursor {
            let date = VaultValue.integer(cursor.dateMilliseconds)
            rows = try db.fetchAll(sessionsAfter, [patientID.vaultValue, date, date, cursor.id.vaultValue, overLimit],
                                   decode)
        } else {
            rows = try db.fetchAll(sessions, [patientID.vaultValue, overLimit], decode)
        }
        let page = rows.prefix(limit)
        let entries = try self.entries(of: Array(page), patientID: patientID, in: db)
        let next = rows.count > limit ? page.last.map { SessionHistoryCursor(after: $0.session) } : nil
        return SessionHistoryPage(entries: entries, nextCursor: next)
    }

    /// `sessions` (one patient's, newest first, contiguous in history order, each with
    /// its stored date_ms) with their diagnoses, signatures and addenda, one query each.
    static func entries(of sessions: [(session: ClinicalSession, dateMs: Int64)], patientID: UUID,
                        in db: DatabaseConnection) throws -> [SessionHistoryEntry] {
        guard let first = sessions.first, let last = sessions.last else { return [] }
        let newest = VaultValue.integer(first.dateMs)
        let oldest = VaultValue.integer(last.dateMs)
        let arguments = [patientID.vaultValue, oldest, newest, oldest, last.session.id.vaultValue, newest,
                         first.session.id.vaultValue]
        var entries = sessions.map { SessionHistoryEntry(session: $0.session, diagnoses: []) }
        var position: [UUID: Int] = [:]
        position.reserveCapacity(sessions.count)
        for (index, row) in sessions.enumerated() { position[row.session.id] = index }
        // Rows come session by session, each session's in its own order; a row of a
        // session outside the page cannot match the span, and would be skipped if it did.
        try db.forEachRow(pageDiagnoses, arguments) { row in
            let diagnosis = try ClinicalRows.diagnosis(row)
            if let index = position[diagnosis.sessionID] { entries[index].diagnoses.append(diagnosis) }
            return true
        }
        try db.forEachRow(pageSignatures, arguments) { row in
            let signature = try SigningRows.signature(row)
            if let index = position[signature.sessionID] {
                entries[index].signature = signature
                entries[index].trustedSigningKey = try SQLCipherClinicalSessionRepository.trustedKey(for: signature, in: db)
            }
            return true
        }
        try db.forEachRow(pageAddenda, arguments) { row in
            let addendum = try SigningRows.addendum(row)
            if let index = position[addendum.sessionID] { entries[index].addenda.append(addendum) }
            return true
        }
        return entries
    }
}
