import Foundation

/// The schema a developer writing the clinic by hand would choose: a table per
/// entity, UUID keys (16-byte blobs), one index per query (a patient's sessions by
/// date, a session's diagnoses, the folded name key for surname-prefix search), no
/// search-token table, no version or soft-delete columns. Both plain peers create it
/// with this very text: "C plain" on SQLCipher, GRDB on plain SQLite.
public enum PlainSchema {
    public static let statements = [
        """
        CREATE TABLE patient (
            id BLOB PRIMARY KEY NOT NULL,
            first_name TEXT NOT NULL,
            last_name TEXT NOT NULL,
            name_key TEXT NOT NULL,
            birth_date TEXT NOT NULL,
            phone TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX patient_name_key ON patient(name_key)",
        """
        CREATE TABLE session (
            id BLOB PRIMARY KEY NOT NULL,
            patient_id BLOB NOT NULL REFERENCES patient(id),
            starts_at INTEGER NOT NULL,
            notes TEXT NOT NULL
        )
        """,
        "CREATE INDEX session_patient ON session(patient_id, starts_at)",
        """
        CREATE TABLE diagnosis (
            id BLOB PRIMARY KEY NOT NULL,
            session_id BLOB NOT NULL REFERENCES session(id),
            code TEXT NOT NULL,
            title TEXT NOT NULL
        )
        """,
        "CREATE INDEX diagnosis_session ON diagnosis(session_id)",
    ]

    public static let insertPatient = """
        INSERT INTO patient (id, first_name, last_name, name_key, birth_date, phone, created_at, updated_at) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    public static let insertSession = "INSERT INTO session (id, patient_id, starts_at, notes) VALUES (?, ?, ?, ?)"
    public static let insertDiagnosis = "INSERT INTO diagnosis (id, session_id, code, title) VALUES (?, ?, ?, ?)"
    public static let countPatients = "SELECT count(*) FROM patient"
    public static let history = """
        SELECT id, patient_id, starts_at, notes FROM session WHERE patient_id = ? ORDER BY starts_at DESC LIMIT ?
        """
    public static let diagnosesOfSession = "SELECT id, session_id, code, title FROM diagnosis WHERE session_id = ?"
    public static let search = """
        SELECT id, first_name, last_name, name_key, birth_date, phone, created_at, updated_at FROM patient \
        WHERE name_key >= ? AND name_key < ? ORDER BY name_key LIMIT ?
        """
    public static let selectPatient = """
        SELECT id, first_name, last_name, name_key, birth_date, phone, created_at, updated_at FROM patient WHERE id = ?
        """
    public static let updatePhone = "UPDATE patient SET phone = ?, updated_at = ? WHERE id = ?"

    /// The initial phone of patient `index`, and the one W5's update `n` writes.
    public static func phone(_ index: Int) -> String {
        "+346\(String(format: "%08d", index % 100_000_000))"
    }
}
