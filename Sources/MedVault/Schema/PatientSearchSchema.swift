import MedVaultCore

/// Migration 3: the patient search index becomes an ordered token table.
///
/// Migration 1 indexed patients in an FTS4 table. FTS4 finds the matches of a prefix
/// but returns them in docid order, so "the first 50 in patient order" had to sort
/// every match: a 3-letter prefix at 100,000 patients meant sorting thousands of rows
/// for 50 results (46× slower than at 10,000). `patient_search_token` holds one row
/// per distinct folded token of a patient's searchable fields, keyed by
/// (token, sort_key, patient_id): the rows of one token come out already in patient
/// order, and ``PatientSearchIndex`` merges the few tokens a prefix covers, reading
/// about as many rows as it returns.
///
/// The migration fills the table from the patient rows (tokens are folded by
/// ``SearchText``, in Swift, as every later write does) and drops the FTS4 table.
enum PatientSearchSchema {
    static func create(_ db: DatabaseConnection) throws {
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
        try db.forEachRow("SELECT rowid, \(ClinicalRows.patientColumns) FROM patient") { row in
            try PatientSearchIndex.insert(try ClinicalRows.patient(row, from: 1), rowid: row.int64(at: 0), in: db)
            return true
        }
        try db.executeScript("DROP TABLE patient_search;")
    }
}
