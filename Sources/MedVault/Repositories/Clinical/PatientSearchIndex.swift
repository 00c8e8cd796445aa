import Foundation
import MedVaultCore

/// The patient search index, `patient_search_token`, and the search that reads it.
///
/// Each patient has one row per distinct folded token (`SearchText.tokens(of:)`) of
/// its searchable fields, keyed by (token, sort_key, patient_id), so the patients
/// holding one token are stored in patient order. A search for the prefix "gar":
///
/// 1. finds the distinct tokens in the key range ["gar", "gar\u{10FFFF}"), one index
///    probe each ("garces", "garcia", "garrido");
/// 2. merges those tokens' rows, each already in patient order, reading them in small
///    batches, so the first patients come out first without sorting every match;
/// 3. reads the candidates' rows, as many at a time as results are still missing (up to
///    ``rowsPerRead``, one statement), and keeps each in merge order when the filter
///    includes it and the other query words are prefixes of its tokens too, until `limit`.
///
/// When the prefix covers a single token (a whole word, or a prefix only one name
/// starts with: the common case), there is nothing to merge: one statement walks that
/// token's rows in patient order joined to the patient rows, as many as results are
/// still missing, so no candidate is decoded apart and no rowid list is built.
///
/// The work is proportional to the distinct tokens plus the rows returned, not to the
/// number of matches: at 100,000 patients a 3-letter prefix costs about what it costs at
/// 10,000. A prefix covering more than ``maxMergedTokens`` distinct tokens (one digit of
/// a phone number) is read as one range instead and sorted, as an ordinary index would.
///
/// Of a multi-word query, the longest word walks the index (the most selective, as a
/// rule); the other words are checked on each candidate by `SearchText`'s rule.
/// Query words are bound as values, never spliced into SQL, so nothing a user types
/// reaches a query parser.
enum PatientSearchIndex {
    /// Beyond this many distinct tokens under one prefix, the search reads the whole
    /// range sorted rather than merging one cursor per token.
    static let maxMergedTokens = 32

    // MARK: - Writing

    static let insertToken = """
        INSERT INTO patient_search_token (token, sort_key, patient_id, patient_rowid) VALUES (?, ?, ?, ?)
        """
    static let deleteTokens = "DELETE FROM patient_search_token WHERE patient_rowid = ?"
    static let deleteToken = "DELETE FROM patient_search_token WHERE token = ? AND sort_key = ? AND patient_id = ?"

    /// The distinct folded tokens of `patient`'s searchable fields, in field order.
    static func tokens(of patient: Patient) -> [String] {
        var seen = Set<String>()
        return patient.searchTokens.filter { seen.insert($0).inserted }
    }

    /// Indexes a newly stored patient.
    static func insert(_ patient: Patient, rowid: Int64, in db: DatabaseConnection) throws {
        let sortKey = VaultValue.text(patient.sortKey)
        for token in tokens(of: patient) {
            try db.execute(insertToken, [.text(token), sortKey, patient.id.vaultValue, .integer(rowid)])
        }
    }

    /// Brings the index rows of a patient stored as `stored` up to date with `patient`.
    ///
    /// When the sort key is unchanged, only the tokens that appear or disappear are
    /// written (a new phone number rewrites one or two rows, not every token of the
    /// patient, each on its own index page); a new sort key moves every row.
    static func update(from stored: Patient, to patient: Patient, rowid: Int64, in db: DatabaseConnection) throws {
        guard stored.sortKey == patient.sortKey else {
            try replace(patient, rowid: rowid, in: db)
            return
        }
        let before = tokens(of: stored)
        let after = tokens(of: patient)
        guard before != after else { return }
        let (remaining, existing) = (Set(after), Set(before))
        let sortKey = VaultValue.text(patient.sortKey)
        for token in before where !remaining.contains(token) {
            try db.execute(deleteToken, [.text(token), sortKey, patient.id.vaultValue])
        }
        for token in after where !existing.contains(token) {
            try db.execute(insertToken, [.text(token), sortKey, patient.id.vaultValue, .integer(rowid)])
        }
    }

    /// Replaces every index row of a patient (its sort key changed, or the index is rebuilt).
    static func replace(_ patient: Patient, rowid: Int64, in db: DatabaseConnection) throws {
        try db.execute(deleteTokens, [.integer(rowid)])
        try insert(patient, rowid: rowid, in: db)
    }

    // MARK: - Searching

    static let firstToken = """
        SELECT token FROM patient_search_token WHERE token >= ? AND token < ? ORDER BY token LIMIT 1
        """
    static let nextToken = """
        SELECT token FROM patient_search_token WHERE token > ? AND token < ? ORDER BY token LIMIT 1
        """
    static let rangeCandidates = """
        SELECT sort_key, patient_id, patient_rowid FROM patient_search_token \
        WHERE token >= ? AND token < ? ORDER BY sort_key, patient_id
        """
    /// Candidates whose rows one statement reads: one statement instead of one per row
    /// (W4: 50 statements per search were the largest part of its SQL cost).
    static let rowsPerRead = 50
    /// The rows of up to ``rowsPerRead`` candidates by rowid; unused places are bound to
    /// NULL, which matches no row. Each row comes with its rowid (the last column).
    static let patientsByRowid = """
        SELECT \(ClinicalRows.patientAndRowidColumns) FROM patient \
        WHERE rowid IN (\(Array(repeating: "?", count: rowsPerRead).joined(separator: ", ")))
        """

    /// The first `limit` patients in patient order that `filter` includes and whose
    /// searchable fields match every token of `queryTokens` as a prefix.
    static func search(
        _ queryTokens: [String], filter: PatientFilter, limit: Int, in db: DatabaseConnection
    ) throws -> [Patient] {
        guard let walker = queryTokens.max(by: { $0.utf8.count < $1.utf8.count }), limit > 0 else { return [] }
        let upper = walker + "\u{10FFFF}"
        // Every candidate holds a token in [walker, upper), which is exactly a token
        // starting with `walker`: only the other words remain to be checked.
        let others = queryTokens.filter { $0 != walker }
        let keeps = { (patient: Patient) in
            filter.includes(patient)
                && (others.isEmpty || SearchText.matches(queryTokens: others, recordTokens: patient.searchTokens))
        }
        let tokens = try self.tokens(prefix: walker, upper: upper, in: db)
        guard !tokens.isEmpty else { return [] }
        if tokens.count == 1 {
            return try patients(holding: tokens[0], keeping: keeps, limit: limit, in: db)
        }
        var candidates = try candidateStream(tokens: tokens, prefix: walker, upper: upper, wanted: limit, in: db)
        var result: [Patient] = []
        var previousID: UUID?
        while result.count < limit {
            // The next candidates, as many as results are missing: if all are kept, not
            // one row more is read than before.
            var wanted: [Int64] = []
            while wanted.count < min(limit - result.count, rowsPerRead), let candidate = try candidates.next(db) {
                // The same patient comes once per matching token, always adjacent.
                guard candidate.id != previousID else { continue }
                previousID = candidate.id
                wanted.append(candidate.rowid)
            }
            guard !wanted.isEmpty else { break }
            let rows = try patients(rowids: wanted, in: db)
            for rowid in wanted {
                guard let patient = rows[rowid], keeps(patient) else { continue }
                result.append(patient)
            }
        }
        return result
    }

    /// One token's patients in patient order, with the index row's key last (to read
    /// the next batch after it). A `LEFT JOIN` fixes the index as the outer loop, so the
    /// rows come in its order whatever the planner estimates; an index row whose patient
    /// row is missing (a damaged index) comes as NULLs and is skipped.
    static let tokenPatients = """
        SELECT \(tokenPatientColumns) FROM patient_search_token t LEFT JOIN patient p ON p.rowid = t.patient_rowid \
        WHERE t.token = ? ORDER BY t.sort_key, t.patient_id LIMIT ?
        """
    /// ``tokenPatients`` after (sort_key, patient_id) = (?, ?), without row values.
    static let tokenPatientsAfter = """
        SELECT \(tokenPatientColumns) FROM patient_search_token t LEFT JOIN patient p ON p.rowid = t.patient_rowid \
        WHERE t.token = ? AND t.sort_key >= ? AND (t.sort_key > ? OR t.patient_id > ?) \
        ORDER BY t.sort_key, t.patient_id LIMIT ?
        """
    private static let tokenPatientColumns =
        "\(ClinicalRows.PatientColumn.selection(alias: "p")), t.sort_key, t.patient_id"
    private static let tokenSortKeyColumn = Int32(ClinicalRows.PatientColumn.allCases.count)

    /// The first `limit` patients holding `token` that `keeps` accepts, in patient order:
    /// each batch reads as many rows as results are still missing, so when every row is
    /// kept, one statement reads exactly the rows returned.
    static func patients(
        holding token: String, keeping keeps: (Patient) -> Bool, limit: Int, in db: DatabaseConnection
    ) throws -> [Patient] {
        var result: [Patient] = []
        var last: (sortKey: String, id: UUID)?
        while result.count < limit {
            let requested = limit - result.count
            var read = 0
            let arguments: [VaultValue] = if let last {
                [.text(token), .text(last.sortKey), .text(last.sortKey), last.id.vaultValue, .integer(Int64(requested))]
            } else {
                [.text(token), .integer(Int64(requested))]
            }
            try db.forEachRow(last == nil ? tokenPatients : tokenPatientsAfter, arguments) { row in
                read += 1
                if read == requested {
                    last = (row.text(at: tokenSortKeyColumn), try row[tokenSortKeyColumn + 1])
                }
                guard !row.isNull(at: ClinicalRows.PatientColumn.id.rawValue) else { return true }
                let patient = try ClinicalRows.patient(row)
                if keeps(patient) { result.append(patient) }
                return true
            }
            guard read == requested else { break }
        }
        return result
    }

    /// The patients with `rowids` (at most ``rowsPerRead``), by rowid, in one statement.
    private static func patients(rowids: [Int64], in db: DatabaseConnection) throws -> [Int64: Patient] {
        var arguments = rowids.map { VaultValue.integer($0) }
        arguments += repeatElement(.null, count: rowsPerRead - rowids.count)
        var rows: [Int64: Patient] = [:]
        rows.reserveCapacity(rowids.count)
        try db.forEachRow(patientsByRowid, arguments) { row in
            let (rowid, patient) = try ClinicalRows.patientAndRowid(row)
            rows[rowid] = patient
            return true
        }
        return rows
    }

    /// The distinct tokens in [`prefix`, `upper`), in order, one index probe each; one
    /// more than ``maxMergedTokens`` at most (enough to know there are too many).
    private static func tokens(prefix: String, upper: String, in db: DatabaseConnection) throws -> [String] {
        var tokens: [String] = []
        var probe = try db.fetchOne(firstToken, [.text(prefix), .text(upper)]) { $0.text(at: 0) }
        while let token = probe, tokens.count <= maxMergedTokens {
            tokens.append(token)
            probe = try db.fetchOne(nextToken, [.text(token), .text(upper)]) { $0.text(at: 0) }
        }
        return tokens
    }

    /// The candidates of `tokens`, the distinct tokens of the prefix range
    /// [`prefix`, `upper`), in patient order.
    private static func candidateStream(
        tokens: [String], prefix: String, upper: String, wanted: Int, in db: DatabaseConnection
    ) throws -> PatientSearchMerge {
        if tokens.count > maxMergedTokens {
            let sorted = try db.fetchAll(rangeCandidates, [.text(prefix), .text(upper)],
                                         PatientSearchCandidate.init(row:))
            return PatientSearchMerge(sorted: sorted)
        }
        return PatientSearchMerge(tokens: tokens, wanted: wanted)
    }
}
