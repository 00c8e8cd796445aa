import BenchmarkSupport
import Foundation
import MedVaultCore

/// The raw reference of W7: `SessionNoteIndex`'s statements (copied, as ``ClinicSQL``
/// copies the repositories') on a ``RawSQLCipher`` connection, prepared once; rows
/// copied into plain structs, the one-patient matching done with `SearchText` as
/// MedVault does.
final class RawNoteSearch {
    static let qualifiedSessionColumns = ClinicSQL.sessionColumns.split(separator: ",")
        .map { "s." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
    static let patientSessions = """
        SELECT \(qualifiedSessionColumns), \
        (SELECT group_concat(a.reason || char(10) || a.text, char(10)) FROM session_addendum a \
        WHERE a.session_id = s.id) FROM clinical_session s WHERE s.patient_id = ? ORDER BY s.date_ms DESC, s.id DESC
        """
    static let sortedMatchesLimit = 256
    static let probe = "SELECT docid FROM session_note_search WHERE session_note_search MATCH ? LIMIT ?"
    static let sortedPage = """
        SELECT d.session_id FROM session_note_search f JOIN session_note_document d ON d.docid = f.docid \
        WHERE session_note_search MATCH ? ORDER BY d.date_ms DESC, d.session_id DESC LIMIT ?
        """
    static let walkedPage = """
        SELECT d.session_id FROM session_note_document d INDEXED BY session_note_document_recent \
        WHERE d.docid IN (SELECT docid FROM session_note_search WHERE session_note_search MATCH ?) \
        ORDER BY d.date_ms DESC, d.session_id DESC LIMIT ?
        """
    /// The sessions of a page of at most 21 ids (unused places bound to NULL).
    static let sessionsOfPage = """
        SELECT \(ClinicSQL.sessionColumns) FROM clinical_session WHERE id IN (\(Array(repeating: "?", count: 21).joined(separator: ", "))) \
        ORDER BY date_ms DESC, id DESC
        """
    static let matchCount = "SELECT count(*) FROM session_note_search WHERE session_note_search MATCH ?"

    private let scoped: RawStatement
    private let probe: RawStatement
    private let sorted: RawStatement
    private let walked: RawStatement
    private let page: RawStatement
    private let count: RawStatement

    init(_ db: RawSQLCipher) throws {
        scoped = try db.prepare(Self.patientSessions)
        probe = try db.prepare(Self.probe)
        sorted = try db.prepare(Self.sortedPage)
        walked = try db.prepare(Self.walkedPage)
        page = try db.prepare(Self.sessionsOfPage)
        count = try db.prepare(Self.matchCount)
    }

    /// The sessions of one patient whose text holds `word` (folded) as a prefix of a
    /// word, newest first, up to `limit`; reads one more match to know a next page exists.
    func patient(_ id: UUID, word: String, limit: Int) throws -> Int {
        defer { scoped.reset() }
        try scoped.bind(1, bytes: Array(id.bytes))
        var found: [RawClinic.SessionRow] = []
        while found.count <= limit, try scoped.step() {
            let row = RawClinic.session(scoped)
            let texts = [row.chiefComplaint, row.notes, row.treatmentPlan, scoped.optionalText(at: 12)].compactMap { $0 }
            if SearchText.matches(queryTokens: [word], recordTokens: texts.flatMap(SearchText.tokens(of:))) {
                found.append(row)
            }
        }
        return min(found.count, limit)
    }

    /// The newest `limit` sessions of the practice whose document holds `word` as a
    /// prefix, by `SessionNoteIndex.practice`'s plans (`limit` + 1 at most 21).
    func practice(word: String, limit: Int) throws -> Int {
        let match = word + "*"
        try probe.bind(1, match)
        try probe.bind(2, Int64(Self.sortedMatchesLimit + 1))
        var probed = 0
        while try probe.step() { probed += 1 }
        probe.reset()
        let plan = probed > Self.sortedMatchesLimit ? walked : sorted
        defer { plan.reset() }
        try plan.bind(1, match)
        try plan.bind(2, Int64(limit + 1))
        var ids: [[UInt8]] = []
        while try plan.step() { ids.append(plan.blob(at: 0)) }
        guard !ids.isEmpty else { return 0 }
        defer { page.reset() }
        for place in 0..<21 {
            if place < ids.count { try page.bind(Int32(place + 1), bytes: ids[place]) } else { try page.bindNull(Int32(place + 1)) }
        }
        var found: [RawClinic.SessionRow] = []
        while try page.step() { found.append(RawClinic.session(page)) }
        return min(found.count, limit)
    }

    /// How many documents hold `word` as a prefix.
    func matches(_ word: String) throws -> Int {
        defer { count.reset() }
        try count.bind(1, word + "*")
        return try count.step() ? Int(count.int64(at: 0)) : 0
    }

    /// Seconds raw C takes to insert `sessions` (indexes into the clinic's data) into a
    /// new file holding `patients` already, in one transaction, with or without their
    /// note documents.
    static func insertSessions(_ clinic: ReadFixtures.Clinic, patients: [Int], sessions: [Int], withDocuments: Bool,
                               at url: URL, schema: ClinicFixture) throws -> Double {
        let db = try schema.create(at: url, key: .raw(clinic.key))
        try RawClinic.insert(clinic.data, patients: patients, sessions: [], into: db)
        let insertSession = try db.prepare(ClinicSQL.insertSession)
        let insertDocument = try db.prepare(ClinicSQL.insertNoteDocument)
        let insertWords = try db.prepare(ClinicSQL.insertNoteWords)
        return try Stopwatch.seconds {
            try db.exec("BEGIN IMMEDIATE")
            for index in sessions {
                let s = clinic.data.sessions[index]
                try RawClinic.bindSession(s, to: insertSession)
                try insertSession.run()
                guard withDocuments else { continue }
                try insertDocument.bind(1, bytes: Array(s.id.bytes))
                try insertDocument.bind(2, s.date.millisecondsSince1970)
                try insertDocument.run()
                try insertWords.bind(1, db.lastInsertedRowID)
                try insertWords.bind(2, clinic.data.noteWords[index])
                try insertWords.run()
            }
            try db.exec("COMMIT")
        }
    }
}
