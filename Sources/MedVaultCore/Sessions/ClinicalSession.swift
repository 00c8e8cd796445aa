import Foundation

/// A clinical encounter between the professional and a patient (HU-04).
///
/// For example:
///
/// ```swift
/// let session = ClinicalSession(patientID: patient.id, date: start, type: .video,
///                               status: .completed, chiefComplaint: "Insomnio")
/// let stored = try await sessions.create(session)
/// ```
public struct ClinicalSession: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// The patient; fixed once created.
    public var patientID: UUID
    /// When the session starts (stored to the millisecond).
    public var date: Date
    /// In person, video or phone.
    public var type: SessionType
    /// Planned or actual length in minutes: 1 to 1,440. Defaults to 50.
    public var durationMinutes: Int
    /// Scheduled, completed or cancelled.
    public var status: SessionStatus
    /// The clinician's notes. Critical sensitivity.
    public var notes: String?
    /// The reason for consultation ("motivo de consulta").
    public var chiefComplaint: String?
    /// The treatment plan.
    public var treatmentPlan: String?
    /// When the record was first stored (set by the repository).
    public var createdAt: Date
    /// When the record was last stored (set by the repository).
    public var updatedAt: Date
    /// The stored version: 1 after creation, +1 on each change (set by the repository).
    public var version: Int64

    /// The default session length, 50 minutes.
    public static let defaultDurationMinutes = 50

    /// Creates an unsaved session; the repository fills timestamps and version.
    public init(
        id: UUID = UUID(), patientID: UUID, date: Date, type: SessionType = .inPerson,
        durationMinutes: Int = ClinicalSession.defaultDurationMinutes, status: SessionStatus = .scheduled,
        notes: String? = nil, chiefComplaint: String? = nil, treatmentPlan: String? = nil
    ) {
        self.id = id
        self.patientID = patientID
        self.date = date
        self.type = type
        self.durationMinutes = durationMinutes
        self.status = status
        self.notes = notes
        self.chiefComplaint = chiefComplaint
        self.treatmentPlan = treatmentPlan
        self.createdAt = Date(millisecondsSince1970: 0)
        self.updatedAt = Date(millisecondsSince1970: 0)
        self.version = 0
    }

    /// When the session ends: ``date`` plus ``durationMinutes``.
    public var endDate: Date { date.addingTimeInterval(TimeInterval(durationMinutes) * 60) }

    /// Every validation failure of this value, in field order (empty when valid).
    ///
    /// - `type`, `status`: non-blank raw values of at most 64 characters.
    /// - `durationMinutes`: 1 to 1,440.
    /// - `notes`, `chiefComplaint`, `treatmentPlan`: at most 200,000 characters; newlines
    ///   and tabs allowed, no other control character (see ``TextSafety``).
    ///
    /// Rules that need storage (the patient exists and is active, status changes)
    /// are the repository's.
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkCategory(type.rawValue, field: "type", into: &errors)
        if !(1...1_440).contains(durationMinutes) {
            errors.append(.validation("durationMinutes", "must be between 1 and 1440"))
        }
        ClinicalValidation.checkCategory(status.rawValue, field: "status", into: &errors)
        for (text, field) in [(notes, "notes"), (chiefComplaint, "chiefComplaint"), (treatmentPlan, "treatmentPlan")] {
            ClinicalValidation.checkOptional(text, field: field, maximum: ClinicalValidation.maximumLongTextLength,
                                             multiline: true, into: &errors)
        }
        return errors
    }

    /// This value as a repository stores it: ``date`` truncated to whole milliseconds,
    /// blank optional texts as `nil`.
    ///
    /// - Throws: The first of ``validationErrors()``.
    public func validated() throws -> ClinicalSession {
        try ClinicalValidation.throwFirst(validationErrors())
        var copy = self
        copy.date = date.truncatedToMilliseconds
        copy.notes = ClinicalValidation.normalized(notes)
        copy.chiefComplaint = ClinicalValidation.normalized(chiefComplaint)
        copy.treatmentPlan = ClinicalValidation.normalized(treatmentPlan)
        return copy
    }
}
