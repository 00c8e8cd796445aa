import Foundation

/// Migration 3, "ordered patient search index": the patient search index becomes an
/// ordered token table.
///
/// Migration 1 indexed patients in an FTS4 table. FTS4 finds the matches of a prefix
/// but returns them in docid order, so "the first 50 in patient order" had to sort
/// every match: a 3-letter prefix at 100,000 patients meant sorting thousands of rows
/// for 50 results (46× slower than at 10,000). `patient_search_token` holds one row
/// per distinct folded token of a patient's searchable fields, keyed by
/// (token, sort_key, patient_id): the rows of one token come out already in patient
/// order, and `PatientSearchIndex` merges the few tokens a prefix covers, reading
/// about as many rows as it returns.
///
/// The migration fills the table from the patient rows and drops the FTS4 table.
///
/// Frozen: it calls no repository code. Its SQL, the fields it indexes and the token
/// folding (``foldedTokens(of:)``, a copy of `SearchText`'s reference folding as it
/// was when this migration was released) are its own. If the live folding or the
/// indexed fields ever change, a new migration re-indexes; this one stays as it is.
enum PatientSearchSchema {
    static func orderPatientSearchIndex(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE patient_search_token (
                token TEXT NOT NULL,             -- one folded token (SearchText.tokens)
                sort_key TEXT NOT NULL,          -- = patient.sort_key
                patient_id BLOB NOT NULL,        -- = patient.id, the tie-break of patient order
                patient_rowid INTEGER NOT NULL,  -- = patient.rowid, to read the row
                PRIMARY KEY (token, sort_key, patient_id)
            ) WITHOUT ROWID;
            -- Re-indexing a patient deletes its rows by rowid, whatever tokens an older
            -- folding produced.
            CREATE INDEX patient_search_token_patient ON patient_search_token(patient_rowid);
            """)
        // Streamed: the rows written go to another table than the one being read.
        try db.forEachRow("""
            SELECT rowid, id, sort_key, first_name, last_name, national_id, email, phone_number FROM patient
            """) { row in
            let fields = (3...7).compactMap { row.isNull(at: $0) ? nil : row.text(at: $0) }
            var seen = Set<String>()
            for token in fields.flatMap(foldedTokens(of:)) where seen.insert(token).inserted {
                try db.execute("""
                    INSERT INTO patient_search_token (token, sort_key, patient_id, patient_rowid) VALUES (?, ?, ?, ?)
                    """, [.text(token), .text(row.text(at: 2)), .blob(row.blob(at: 1)), .integer(row.int64(at: 0))])
            }
            return true
        }
        try db.executeScript("DROP TABLE patient_search;")
    }

    /// The folded tokens of `text`: Foundation's case- and diacritic-insensitive
    /// folding, lower-cased, split at every scalar that is not a letter or digit.
    /// A frozen copy of `SearchText.foundationTokens(of:)` as of this migration.
    static func foldedTokens(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        var tokens: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
