import Foundation

/// The statements of the raw reference: the very SQL text the SQLCipher
/// repositories run (copied from `Sources/MedVault/Repositories/`, whose constants
/// are internal), so both sides do the same SQL work and the ratio measures the
/// Swift layer. If a repository's SQL changes, change it here too.
enum ClinicSQL {
    static let patientColumns = """
        id, first_name, last_name, date_of_birth, biological_sex, national_id, email, phone_number, \
        address, deleted_at, created_at, updated_at, version
        """
    static let sessionColumns = """
        id, patient_id, date_ms, type, duration_minutes, status, created_at, updated_at, version, \
        chief_complaint, treatment_plan, notes
        """
    static let diagnosisColumns = """
        id, session_id, code, title, title_es, uri, release_version, diagnosis_type, severity, \
        diagnosed_at, created_at, updated_at, version, clinical_notes
        """

    // MARK: - Writes (W1, W5)

    static let insertPatient = """
        INSERT INTO patient (id, first_name, last_name, sort_key, date_of_birth, biological_sex, national_id, \
        email, phone_number, address, deleted_at, created_at, updated_at, version) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertSearchToken = """
        INSERT INTO patient_search_token (token, sort_key, patient_id, patient_rowid) VALUES (?, ?, ?, ?)
        """
    static let insertSession = """
        INSERT INTO clinical_session (\(sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// `SessionNoteIndex`'s two statements for a new session: its document's docid, then
    /// its folded words.
    static let insertNoteDocument = "INSERT INTO session_note_document (session_id, date_ms) VALUES (?, ?)"
    static let insertNoteWords = "INSERT INTO session_note_search (docid, words) VALUES (?, ?)"
    /// `DiagnosisStorage`'s three statements: the snapshot's id, the snapshot when new,
    /// then the diagnosis's row naming it.
    static let findSnapshot = """
        SELECT id FROM icd11_snapshot \
        WHERE release_version = ? AND code = ? AND uri = ? AND title = ? AND title_es IS ?
        """
    static let insertSnapshot = """
        INSERT INTO icd11_snapshot (release_version, code, uri, title, title_es) VALUES (?, ?, ?, ?, ?)
        """
    static let insertDiagnosisRow = """
        INSERT INTO diagnosis_row (id, session_id, diagnosis_type, severity, diagnosed_at, created_at, updated_at, \
        version, clinical_notes, snapshot_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let selectPatientByID = "SELECT rowid, \(patientColumns) FROM patient WHERE id = ?"
    static let updatePatient = """
        UPDATE patient SET first_name = ?, last_name = ?, sort_key = ?, date_of_birth = ?, \
        biological_sex = ?, national_id = ?, email = ?, phone_number = ?, address = ?, \
        updated_at = ?, version = ? WHERE rowid = ?
        """

    // MARK: - Reads (W2, W3, W4)

    static let countPatients = "SELECT count(*) FROM patient WHERE 1"
    static let patientExists = "SELECT 1 FROM patient WHERE id = ?"
    static let history = """
        SELECT \(sessionColumns) FROM clinical_session WHERE patient_id = ? ORDER BY date_ms DESC, id DESC LIMIT ?
        """
    /// `SessionHistoryReader`'s page-wide reads: the rows of every session of the page
    /// (one patient, (date_ms, id) between the page's last and first entries).
    private static let pageSessions = """
        WHERE s.patient_id = ? AND s.date_ms >= ? AND s.date_ms <= ? \
        AND (s.date_ms > ? OR s.id >= ?) AND (s.date_ms < ? OR s.id <= ?)
        """
    static let pageDiagnoses = """
        SELECT d.id, d.session_id, d.code, d.title, d.title_es, d.uri, d.release_version, d.diagnosis_type, \
        d.severity, d.diagnosed_at, d.created_at, d.updated_at, d.version, d.clinical_notes \
        FROM clinical_session s JOIN diagnosis d ON d.session_id = s.id \(pageSessions) \
        ORDER BY s.date_ms DESC, s.id DESC, d.diagnosed_at, d.id
        """
    static let pageSignatures = """
        SELECT g.session_id, g.professional_id, g.professional_name, g.license_number, g.signed_at, \
        g.content_sha256, g.encoding_version \
        FROM clinical_session s JOIN session_signature g ON g.session_id = s.id \(pageSessions)
        """
    static let pageAddenda = """
        SELECT a.id, a.session_id, a.author_id, a.author_name, a.created_at, a.reason, a.text \
        FROM clinical_session s JOIN session_addendum a ON a.session_id = s.id \(pageSessions) ORDER BY a.position
        """

    // MARK: - Search (W4), PatientSearchIndex and PatientSearchMerge

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
    static let firstBatch = """
        SELECT sort_key, patient_id, patient_rowid FROM patient_search_token \
        WHERE token = ? ORDER BY sort_key, patient_id LIMIT ?
        """
    static let nextBatch = """
        SELECT sort_key, patient_id, patient_rowid FROM patient_search_token \
        WHERE token = ? AND sort_key >= ? AND (sort_key > ? OR patient_id > ?) \
        ORDER BY sort_key, patient_id LIMIT ?
        """
    /// `PatientSearchIndex.tokenPatients` and `tokenPatientsAfter`: a single token's
    /// patients joined to their rows, the index key last.
    static let tokenPatients = """
        SELECT \(tokenPatientColumns) FROM patient_search_token t LEFT JOIN patient p ON p.rowid = t.patient_rowid \
        WHERE t.token = ? ORDER BY t.sort_key, t.patient_id LIMIT ?
        """
    static let tokenPatientsAfter = """
        SELECT \(tokenPatientColumns) FROM patient_search_token t LEFT JOIN patient p ON p.rowid = t.patient_rowid \
        WHERE t.token = ? AND t.sort_key >= ? AND (t.sort_key > ? OR t.patient_id > ?) \
        ORDER BY t.sort_key, t.patient_id LIMIT ?
        """
    private static let tokenPatientColumns = patientColumns.split(separator: ",")
        .map { "p." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        + ", t.sort_key, t.patient_id"
    /// `PatientSearchIndex.patientsByRowid`: up to 50 candidates' rows in one statement.
    static let patientsPerRead = 50
    static let patientsByRowid = """
        SELECT \(patientColumns), rowid FROM patient \
        WHERE rowid IN (\(Array(repeating: "?", count: patientsPerRead).joined(separator: ", ")))
        """

    // MARK: - Medications (W6)

    static let medicationsOfPatient = """
        SELECT id, patient_id, name, generic_name, dosage_amount, dosage_unit, form, route, frequency_kind, \
        frequency_count, frequency_times, frequency_time_labels, instructions, start_date, end_date, is_active, \
        requires_prescription, inventory_current, inventory_minimum, inventory_package_size, \
        inventory_expiration_date, created_at, updated_at, version, rowid FROM medication WHERE patient_id = ?
        """
    static let schedulesOfPatient = """
        SELECT s.id, s.medication_id, s.times, s.time_labels, s.days_of_week, s.time_zone, s.created_at, \
        s.updated_at, s.version FROM medication m JOIN medication_schedule s ON s.medication_id = m.id \
        WHERE m.patient_id = ? ORDER BY s.created_at, s.id
        """
    static let logsOfPatient = """
        SELECT id, medication_id, scheduled_at, taken_at, status, skip_reason, notes, created_at, updated_at, \
        version FROM dose_log WHERE patient_id = ? AND scheduled_at >= ? AND scheduled_at < ? \
        ORDER BY scheduled_at, medication_id
        """
}
