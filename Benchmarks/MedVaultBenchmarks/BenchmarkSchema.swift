import MedVault

/// The benchmark's own schema, used until the repositories' schema can be measured:
/// the same shape (blob UUID keys, foreign keys, a history index) and sizes.
enum BenchmarkSchema {
    static let createSQL = """
        CREATE TABLE bench_patient(
            id BLOB PRIMARY KEY NOT NULL,
            first_name TEXT NOT NULL,
            last_name TEXT NOT NULL,
            birth_date TEXT NOT NULL,
            created_at INTEGER NOT NULL);
        CREATE TABLE bench_session(
            id BLOB PRIMARY KEY NOT NULL,
            patient_id BLOB NOT NULL REFERENCES bench_patient(id),
            starts_at INTEGER NOT NULL,
            notes TEXT NOT NULL);
        CREATE INDEX bench_session_history ON bench_session(patient_id, starts_at DESC);
        CREATE TABLE bench_diagnosis(
            id BLOB PRIMARY KEY NOT NULL,
            session_id BLOB NOT NULL REFERENCES bench_session(id),
            code TEXT NOT NULL,
            title TEXT NOT NULL);
        CREATE INDEX bench_diagnosis_session ON bench_diagnosis(session_id);
        CREATE TABLE bench_counter(
            id INTEGER PRIMARY KEY,
            value INTEGER NOT NULL,
            updated_at INTEGER NOT NULL);
        """

    static let insertPatient = "INSERT INTO bench_patient(id, first_name, last_name, birth_date, created_at) VALUES (?, ?, ?, ?, ?)"
    static let insertSession = "INSERT INTO bench_session(id, patient_id, starts_at, notes) VALUES (?, ?, ?, ?)"
    static let insertDiagnosis = "INSERT INTO bench_diagnosis(id, session_id, code, title) VALUES (?, ?, ?, ?)"
    static let insertCounter = "INSERT INTO bench_counter(id, value, updated_at) VALUES (?, 0, 0)"
    static let updateCounter = "UPDATE bench_counter SET value = value + 1, updated_at = ? WHERE id = ?"

    /// The schema as MedVault's migration 1.
    static let migrator = SchemaMigrator([
        .init(version: 1, name: "benchmark schema") { db in try db.executeScript(createSQL) },
    ])

    /// The same schema and `user_version` on a raw connection.
    static func create(on db: RawSQLCipher) throws {
        try db.exec("BEGIN IMMEDIATE; \(createSQL) PRAGMA user_version = 1; COMMIT;")
    }
}
