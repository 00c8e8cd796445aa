import Foundation

/// In-memory clinical repositories sharing one set of tables: test doubles for apps
/// and the reference behaviour the SQLCipher repositories are checked against.
///
/// ``InMemoryVault`` is built on it and adds the medications, which see these
/// patients: prefer it, as it mirrors `Vault` property for property.
///
/// For example:
///
/// ```swift
/// let records = InMemoryClinicalRecords(clock: .fixed(someDate))
/// let patient = try await records.patients.create(
///     Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
/// try await records.sessions.create(ClinicalSession(patientID: patient.id, date: someDate))
/// ```
public struct InMemoryClinicalRecords: Sendable {
    /// The default maximum attachment size: 100 MiB.
    public static let defaultMaximumAttachmentByteCount: Int64 = 100 * 1024 * 1024

    /// The vault owner's profile.
    public let professional: InMemoryProfessionalRepository
    /// Patients.
    public let patients: InMemoryPatientRepository
    /// Clinical sessions.
    public let sessions: InMemoryClinicalSessionRepository
    /// Diagnoses.
    public let diagnoses: InMemoryDiagnosisRepository
    /// Attachments.
    public let attachments: InMemoryAttachmentRepository

    let store: InMemoryClinicalStore

    /// Creates empty repositories.
    ///
    /// - Parameters:
    ///   - clock: Where "now" comes from (timestamps, the birth-date rule).
    ///   - maximumAttachmentByteCount: The largest attachment accepted.
    public init(clock: RecordClock = .system,
                maximumAttachmentByteCount: Int64 = InMemoryClinicalRecords.defaultMaximumAttachmentByteCount) {
        let store = InMemoryClinicalStore(clock: clock, maximumAttachmentByteCount: maximumAttachmentByteCount)
        self.store = store
        self.professional = InMemoryProfessionalRepository(store: store)
        self.patients = InMemoryPatientRepository(store: store)
        self.sessions = InMemoryClinicalSessionRepository(store: store)
        self.diagnoses = InMemoryDiagnosisRepository(store: store)
        self.attachments = InMemoryAttachmentRepository(store: store)
    }
}
