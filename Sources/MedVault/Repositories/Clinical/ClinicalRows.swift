import Foundation
import MedVaultCore

/// How each clinical value maps to its table: a column enum per table (the column
/// list every `SELECT` uses, the arguments of its `INSERT` and `UPDATE`), and the
/// decoding of a row by column name.
///
/// Decoding never trusts the file blindly: a NULL in a required column or a malformed
/// stored value throws `MedVaultError.Code.corrupted` (see ``VaultRow``).
enum ClinicalRows {
    // MARK: - Patient

    /// `patient`'s columns (its `rowid`, the search index's docid, is selected apart).
    enum PatientColumn: Int32, RecordColumn {
        case id, firstName, lastName, sortKey, dateOfBirth, biologicalSex, nationalId, email, phoneNumber,
             address, deletedAt, createdAt, updatedAt, version

        static func value(of p: Patient, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: p.id
            case .firstName: p.firstName
            case .lastName: p.lastName
            case .sortKey: p.sortKey
            case .dateOfBirth: p.dateOfBirth
            case .biologicalSex: p.biologicalSex?.rawValue
            case .nationalId: p.nationalId
            case .email: p.email
            case .phoneNumber: p.phoneNumber
            case .address: p.address
            case .deletedAt: p.deletedAt
            case .createdAt: p.createdAt
            case .updatedAt: p.updatedAt
            case .version: p.version
            }
        }
    }

    static let insertPatient = "INSERT INTO patient (\(PatientColumn.selection)) VALUES (\(PatientColumn.placeholders))"

    /// What an update may change; `deleted_at` and `created_at` are the repository's.
    static let updatedPatientColumns: [PatientColumn] = [
        .firstName, .lastName, .sortKey, .dateOfBirth, .biologicalSex, .nationalId, .email, .phoneNumber,
        .address, .updatedAt, .version,
    ]

    static func insertArguments(_ p: Patient) -> [VaultValue] {
        PatientColumn.arguments(p)
    }

    /// The patient columns followed by `rowid`, for ``patientAndRowid(_:)``.
    static let patientAndRowidColumns = "\(PatientColumn.selection), rowid"

    /// A row selected with ``patientAndRowidColumns``.
    static func patientAndRowid(_ row: VaultRow) throws -> (rowid: Int64, patient: Patient) {
        (row.int64(at: Int32(PatientColumn.allCases.count)), try patient(row))
    }

    static func patient(_ row: VaultRow) throws -> Patient {
        typealias C = PatientColumn
        var p = Patient(id: try row[C.id], firstName: try row[C.firstName], lastName: try row[C.lastName],
                        dateOfBirth: try row[C.dateOfBirth])
        p.biologicalSex = (try row[C.biologicalSex] as String?).map(BiologicalSex.init(rawValue:))
        p.nationalId = try row[C.nationalId]
        p.email = try row[C.email]
        p.phoneNumber = try row[C.phoneNumber]
        p.address = try row[C.address]
        p.deletedAt = try row[C.deletedAt]
        p.createdAt = try row[C.createdAt]
        p.updatedAt = try row[C.updatedAt]
        p.version = try row[C.version]
        return p
    }

    // MARK: - Session

    /// `clinical_session`'s columns.
    enum SessionColumn: Int32, RecordColumn {
        case id, patientId, dateMs, type, durationMinutes, status, createdAt, updatedAt, version,
             chiefComplaint, treatmentPlan, notes

        static func value(of s: ClinicalSession, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: s.id
            case .patientId: s.patientID
            case .dateMs: s.date
            case .type: s.type.rawValue
            case .durationMinutes: s.durationMinutes
            case .status: s.status.rawValue
            case .createdAt: s.createdAt
            case .updatedAt: s.updatedAt
            case .version: s.version
            case .chiefComplaint: s.chiefComplaint
            case .treatmentPlan: s.treatmentPlan
            case .notes: s.notes
            }
        }
    }

    static let insertSession = """
        INSERT INTO clinical_session (\(SessionColumn.selection)) VALUES (\(SessionColumn.placeholders))
        """

    /// What an update may change: not the id, the patient or the creation date.
    static let updatedSessionColumns: [SessionColumn] = [
        .dateMs, .type, .durationMinutes, .status, .updatedAt, .version, .chiefComplaint, .treatmentPlan, .notes,
    ]

    static func insertArguments(_ s: ClinicalSession) -> [VaultValue] {
        SessionColumn.arguments(s)
    }

    static func session(_ row: VaultRow) throws -> ClinicalSession {
        typealias C = SessionColumn
        var s = ClinicalSession(id: try row[C.id], patientID: try row[C.patientId], date: try row[C.dateMs],
                                type: SessionType(rawValue: try row[C.type]),
                                durationMinutes: try row[C.durationMinutes],
                                status: SessionStatus(rawValue: try row[C.status]))
        s.createdAt = try row[C.createdAt]
        s.updatedAt = try row[C.updatedAt]
        s.version = try row[C.version]
        s.chiefComplaint = try row[C.chiefComplaint]
        s.treatmentPlan = try row[C.treatmentPlan]
        s.notes = try row[C.notes]
        return s
    }

    // MARK: - Diagnosis

    /// `diagnosis`'s columns.
    enum DiagnosisColumn: Int32, RecordColumn {
        case id, sessionId, code, title, titleEs, uri, releaseVersion, diagnosisType, severity,
             diagnosedAt, createdAt, updatedAt, version, clinicalNotes

        static func value(of d: Diagnosis, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: d.id
            case .sessionId: d.sessionID
            case .code: d.snapshot.code
            case .title: d.snapshot.title
            case .titleEs: d.snapshot.titleEs
            case .uri: d.snapshot.uri
            case .releaseVersion: d.snapshot.releaseVersion
            case .diagnosisType: d.diagnosisType.rawValue
            case .severity: d.severity?.rawValue
            case .diagnosedAt: d.diagnosedAt
            case .createdAt: d.createdAt
            case .updatedAt: d.updatedAt
            case .version: d.version
            case .clinicalNotes: d.clinicalNotes
            }
        }
    }

    /// Inserts a stamped diagnosis: its snapshot shared in `icd11_snapshot`, its row in
    /// `diagnosis_row` (see ``DiagnosisStorage``).
    static func insert(_ d: Diagnosis, in db: DatabaseConnection) throws {
        try DiagnosisStorage.insert(DiagnosisColumn.arguments(d), as: diagnosisLayout, db)
    }

    private static let diagnosisLayout = DiagnosisStorage.Layout(columns: DiagnosisColumn.allCases.map(\.name))

    /// The amendable columns: the snapshot's, the session and the date are guarded by triggers.
    static let updatedDiagnosisColumns: [DiagnosisColumn] = [
        .diagnosisType, .severity, .clinicalNotes, .updatedAt, .version,
    ]

    static func diagnosis(_ row: VaultRow) throws -> Diagnosis {
        typealias C = DiagnosisColumn
        let snapshot = ICD11Snapshot(code: try row[C.code], title: try row[C.title], titleEs: try row[C.titleEs],
                                     uri: try row[C.uri], releaseVersion: try row[C.releaseVersion])
        var d = Diagnosis(id: try row[C.id], sessionID: try row[C.sessionId], snapshot: snapshot,
                          diagnosisType: DiagnosisType(rawValue: try row[C.diagnosisType]),
                          severity: (try row[C.severity] as String?).map(DiagnosisSeverity.init(rawValue:)),
                          clinicalNotes: try row[C.clinicalNotes], diagnosedAt: try row[C.diagnosedAt])
        d.createdAt = try row[C.createdAt]
        d.updatedAt = try row[C.updatedAt]
        d.version = try row[C.version]
        return d
    }

    // MARK: - Professional

    /// `professional`'s columns (its `singleton` key is always 1, written apart).
    enum ProfessionalColumn: Int32, RecordColumn {
        case id, fullName, licenseNumber, specialty, email, preferredLanguage, createdAt, updatedAt, version

        static func value(of p: Professional, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: p.id
            case .fullName: p.fullName
            case .licenseNumber: p.licenseNumber
            case .specialty: p.specialty
            case .email: p.email
            case .preferredLanguage: p.preferredLanguage
            case .createdAt: p.createdAt
            case .updatedAt: p.updatedAt
            case .version: p.version
            }
        }
    }

    static func professional(_ row: VaultRow) throws -> Professional {
        typealias C = ProfessionalColumn
        var p = Professional(id: try row[C.id], fullName: try row[C.fullName], licenseNumber: try row[C.licenseNumber],
                             specialty: try row[C.specialty], email: try row[C.email],
                             preferredLanguage: try row[C.preferredLanguage])
        p.createdAt = try row[C.createdAt]
        p.updatedAt = try row[C.updatedAt]
        p.version = try row[C.version]
        return p
    }

    // MARK: - Attachment

    /// The columns of a complete attachment as its repository reads it.
    enum AttachmentColumn: Int32, RecordColumn {
        case id, sessionId, fileName, mimeType, byteCount, sha256, createdAt, updatedAt, version

        static func value(of a: Attachment, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: a.id
            case .sessionId: a.sessionID
            case .fileName: a.fileName
            case .mimeType: a.mimeType
            case .byteCount: a.byteCount
            case .sha256: Data(a.sha256.bytes)
            case .createdAt: a.createdAt
            case .updatedAt: a.updatedAt
            case .version: a.version
            }
        }
    }

    /// Inserts an attachment's row as it was stored elsewhere (an import), incomplete:
    /// its chunks follow (`SQLCipherAttachmentRepository.insertChunk`; a trigger refuses
    /// chunks of a complete attachment), then ``completeAttachment`` seals it.
    static let insertIncompleteAttachment = """
        INSERT INTO attachment (\(AttachmentColumn.selection), is_complete) VALUES (\(AttachmentColumn.placeholders), 0)
        """

    /// Seals an attachment inserted by ``insertIncompleteAttachment`` once its chunks are in.
    static let completeAttachment = "UPDATE attachment SET is_complete = 1 WHERE id = ? AND is_complete = 0"

    static func attachment(_ row: VaultRow) throws -> Attachment {
        typealias C = AttachmentColumn
        let digest: SHA256Digest
        do {
            digest = try SHA256Digest(bytes: [UInt8](row.blob(at: C.sha256.rawValue)))
        } catch {
            throw MedVaultError(.corrupted, reason: "a stored attachment digest is malformed")
        }
        return Attachment(id: try row[C.id], sessionID: try row[C.sessionId], fileName: try row[C.fileName],
                          mimeType: try row[C.mimeType], byteCount: try row[C.byteCount], sha256: digest,
                          createdAt: try row[C.createdAt], updatedAt: try row[C.updatedAt],
                          version: try row[C.version])
    }
}
