import Foundation
import MedVaultCore

/// How each clinical value maps to its table: the column list every `SELECT` uses,
/// the arguments of its `INSERT`, and the decoding of a row.
///
/// Decoding never trusts the file blindly: a NULL in a required column or a malformed
/// stored value throws ``MedVaultError/Code/corrupted`` (see ``Row``).
enum ClinicalRows {
    // MARK: - Patient

    static let patientColumns = """
        id, first_name, last_name, date_of_birth, biological_sex, national_id, email, phone_number, \
        address, deleted_at, created_at, updated_at, version
        """

    /// Column list with a table alias (`p.id, p.first_name, …`).
    static func patientColumns(alias: String) -> String {
        patientColumns.split(separator: ",")
            .map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }
            .joined(separator: ", ")
    }

    static let insertPatient = """
        INSERT INTO patient (id, first_name, last_name, sort_key, date_of_birth, biological_sex, national_id, \
        email, phone_number, address, deleted_at, created_at, updated_at, version) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertArguments(_ p: Patient) -> [DatabaseValue] {
        [p.id.databaseValue, .text(p.firstName), .text(p.lastName), .text(p.sortKey),
         p.dateOfBirth.databaseValue, p.biologicalSex?.rawValue.databaseValue ?? .null,
         p.nationalId.databaseValue, p.email.databaseValue, p.phoneNumber.databaseValue,
         p.address.databaseValue, p.deletedAt.databaseValue, p.createdAt.databaseValue,
         p.updatedAt.databaseValue, .integer(p.version)]
    }

    static func patient(_ row: Row, from start: Int32 = 0) throws -> Patient {
        var p = Patient(id: try row[start], firstName: try row[start + 1], lastName: try row[start + 2],
                        dateOfBirth: try row[start + 3])
        p.biologicalSex = (try row[start + 4] as String?).map(BiologicalSex.init(rawValue:))
        p.nationalId = try row[start + 5]
        p.email = try row[start + 6]
        p.phoneNumber = try row[start + 7]
        p.address = try row[start + 8]
        p.deletedAt = try row[start + 9]
        p.createdAt = try row[start + 10]
        p.updatedAt = try row[start + 11]
        p.version = try row[start + 12]
        return p
    }

    // MARK: - Session

    static let sessionColumns = """
        id, patient_id, date_ms, type, duration_minutes, status, created_at, updated_at, version, \
        chief_complaint, treatment_plan, notes
        """

    static let insertSession = """
        INSERT INTO clinical_session (\(sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertArguments(_ s: ClinicalSession) -> [DatabaseValue] {
        [s.id.databaseValue, s.patientID.databaseValue, s.date.databaseValue, .text(s.type.rawValue),
         .integer(Int64(s.durationMinutes)), .text(s.status.rawValue), s.createdAt.databaseValue,
         s.updatedAt.databaseValue, .integer(s.version), s.chiefComplaint.databaseValue,
         s.treatmentPlan.databaseValue, s.notes.databaseValue]
    }

    static func session(_ row: Row) throws -> ClinicalSession {
        var s = ClinicalSession(id: try row[0], patientID: try row[1], date: try row[2],
                                type: SessionType(rawValue: try row[3]), durationMinutes: try row[4],
                                status: SessionStatus(rawValue: try row[5]))
        s.createdAt = try row[6]
        s.updatedAt = try row[7]
        s.version = try row[8]
        s.chiefComplaint = try row[9]
        s.treatmentPlan = try row[10]
        s.notes = try row[11]
        return s
    }

    // MARK: - Diagnosis

    static let diagnosisColumns = """
        id, session_id, code, title, title_es, uri, release_version, diagnosis_type, severity, \
        diagnosed_at, created_at, updated_at, version, clinical_notes
        """

    /// Column list with a table alias (`d.id, d.session_id, …`).
    static func diagnosisColumns(alias: String) -> String {
        diagnosisColumns.split(separator: ",")
            .map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }
            .joined(separator: ", ")
    }

    static let insertDiagnosis = """
        INSERT INTO diagnosis (\(diagnosisColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertArguments(_ d: Diagnosis) -> [DatabaseValue] {
        [d.id.databaseValue, d.sessionID.databaseValue, .text(d.snapshot.code), .text(d.snapshot.title),
         d.snapshot.titleEs.databaseValue, .text(d.snapshot.uri), .text(d.snapshot.releaseVersion),
         .text(d.diagnosisType.rawValue), d.severity?.rawValue.databaseValue ?? .null,
         d.diagnosedAt.databaseValue, d.createdAt.databaseValue, d.updatedAt.databaseValue,
         .integer(d.version), d.clinicalNotes.databaseValue]
    }

    static func diagnosis(_ row: Row) throws -> Diagnosis {
        let snapshot = ICD11Snapshot(code: try row[2], title: try row[3], titleEs: try row[4], uri: try row[5],
                                     releaseVersion: try row[6])
        var d = Diagnosis(id: try row[0], sessionID: try row[1], snapshot: snapshot,
                          diagnosisType: DiagnosisType(rawValue: try row[7]),
                          severity: (try row[8] as String?).map(DiagnosisSeverity.init(rawValue:)),
                          clinicalNotes: try row[13], diagnosedAt: try row[9])
        d.createdAt = try row[10]
        d.updatedAt = try row[11]
        d.version = try row[12]
        return d
    }

    // MARK: - Professional

    static let professionalColumns = """
        id, full_name, license_number, specialty, email, preferred_language, created_at, updated_at, version
        """

    static func professional(_ row: Row) throws -> Professional {
        var p = Professional(id: try row[0], fullName: try row[1], licenseNumber: try row[2],
                             specialty: try row[3], email: try row[4], preferredLanguage: try row[5])
        p.createdAt = try row[6]
        p.updatedAt = try row[7]
        p.version = try row[8]
        return p
    }

    // MARK: - Attachment

    static let attachmentColumns = """
        id, session_id, file_name, mime_type, byte_count, sha256, created_at, updated_at, version
        """

    static func attachment(_ row: Row) throws -> Attachment {
        let digest: SHA256Digest
        do {
            digest = try SHA256Digest(bytes: [UInt8](row.blob(at: 5)))
        } catch {
            throw MedVaultError(.corrupted, reason: "a stored attachment digest is malformed")
        }
        return Attachment(id: try row[0], sessionID: try row[1], fileName: try row[2], mimeType: try row[3],
                          byteCount: try row[4], sha256: digest, createdAt: try row[6], updatedAt: try row[7],
                          version: try row[8])
    }
}
