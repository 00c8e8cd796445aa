/// Tables of the clinical records: professional, patients, sessions, diagnoses,
/// attachments, and the patient search index.
enum ClinicalSchema {
    static func create(_ db: DatabaseConnection) throws {
        // Instants are integer milliseconds UTC; calendar dates ISO `YYYY-MM-DD` text;
        // identifiers 16-byte blobs; categories their raw string values.
        try db.executeScript("""
            CREATE TABLE patient (
                rowid INTEGER PRIMARY KEY,  -- the search index's docid
                id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                sort_key TEXT NOT NULL,
                date_of_birth TEXT NOT NULL,
                biological_sex TEXT,
                national_id TEXT,
                email TEXT,
                phone_number TEXT,
                address TEXT,
                deleted_at INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                version INTEGER NOT NULL
            );
            """)
    }
}
