import Foundation

/// An ICD-11 diagnosis made in a clinical session (HU-04).
///
/// The ``snapshot``, the session and ``diagnosedAt`` are fixed once saved; the
/// type, severity and clinical notes may be amended (with a version bump).
///
/// For example:
///
/// ```swift
/// let diagnosis = Diagnosis(sessionID: session.id, snapshot: snapshot,
///                           diagnosisType: .principal, severity: .moderate, diagnosedAt: .now)
/// try await diagnoses.create(diagnosis)
/// ```
public struct Diagnosis: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// The session the diagnosis was made in. Fixed once saved.
    public var sessionID: UUID
    /// The frozen ICD-11 data. Fixed once saved.
    public var snapshot: ICD11Snapshot
    /// Principal, secondary or differential. Amendable.
    public var diagnosisType: DiagnosisType
    /// Severity, if assessed. Amendable.
    public var severity: DiagnosisSeverity?
    /// Clinical notes. Critical sensitivity. Amendable.
    public var clinicalNotes: String?
    /// When the diagnosis was made (stored to the millisecond). Fixed once saved.
    public var diagnosedAt: Date
    /// When the record was first stored (set by the repository).
    public var createdAt: Date
    /// When the record was last stored (set by the repository).
    public var updatedAt: Date
    /// The stored version: 1 after creation, +1 on each amendment (set by the repository).
    public var version: Int64

    /// Creates an unsaved diagnosis; the repository fills timestamps and version.
    public init(
        id: UUID = UUID(), sessionID: UUID, snapshot: ICD11Snapshot, diagnosisType: DiagnosisType = .principal,
        severity: DiagnosisSeverity? = nil, clinicalNotes: String? = nil, diagnosedAt: Date
    ) {
        self.id = id
        self.sessionID = sessionID
        self.snapshot = snapshot
        self.diagnosisType = diagnosisType
        self.severity = severity
        self.clinicalNotes = clinicalNotes
        self.diagnosedAt = diagnosedAt
        self.createdAt = Date(millisecondsSince1970: 0)
        self.updatedAt = Date(millisecondsSince1970: 0)
        self.version = 0
    }

    /// Every validation failure, in field order (empty when valid): the snapshot's
    /// (``ICD11Snapshot/validationErrors()``), then `diagnosisType`, `severity` (non-blank
    /// raw values of at most 64 characters) and `clinicalNotes` (at most 200,000 characters).
    public func validationErrors() -> [MedVaultError] {
        var errors = snapshot.validationErrors()
        ClinicalValidation.checkCategory(diagnosisType.rawValue, field: "diagnosisType", into: &errors)
        ClinicalValidation.checkCategory(severity?.rawValue, field: "severity", into: &errors)
        ClinicalValidation.checkOptional(clinicalNotes, field: "clinicalNotes",
                                         maximum: ClinicalValidation.maximumLongTextLength, multiline: true, into: &errors)
        return errors
    }

    /// This value as a repository stores it: ``diagnosedAt`` truncated to whole
    /// milliseconds, blank notes and Spanish title as `nil`.
    ///
    /// - Throws: The first of ``validationErrors()``.
    public func validated() throws -> Diagnosis {
        try ClinicalValidation.throwFirst(validationErrors())
        var copy = self
        copy.diagnosedAt = diagnosedAt.truncatedToMilliseconds
        copy.clinicalNotes = ClinicalValidation.normalized(clinicalNotes)
        copy.snapshot = ICD11Snapshot(code: snapshot.code, title: snapshot.title,
                                      titleEs: ClinicalValidation.normalized(snapshot.titleEs),
                                      uri: snapshot.uri, releaseVersion: snapshot.releaseVersion)
        return copy
    }

    /// The name of the first fixed field (`sessionID`, `snapshot.code`, `snapshot.title`,
    /// `snapshot.titleEs`, `snapshot.uri`, `snapshot.releaseVersion`, `diagnosedAt`) in
    /// which `amended` differs from this stored diagnosis, or `nil` when none does.
    /// Compare validated values (``validated()``).
    public func firstChangedFixedField(in amended: Diagnosis) -> String? {
        if amended.sessionID != sessionID { return "sessionID" }
        if amended.snapshot.code != snapshot.code { return "snapshot.code" }
        if amended.snapshot.title != snapshot.title { return "snapshot.title" }
        if amended.snapshot.titleEs != snapshot.titleEs { return "snapshot.titleEs" }
        if amended.snapshot.uri != snapshot.uri { return "snapshot.uri" }
        if amended.snapshot.releaseVersion != snapshot.releaseVersion { return "snapshot.releaseVersion" }
        if amended.diagnosedAt != diagnosedAt { return "diagnosedAt" }
        return nil
    }
}
