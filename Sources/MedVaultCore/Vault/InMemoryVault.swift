import Foundation

/// The in-memory counterpart of `Vault`, for apps' previews and unit tests: the same
/// repositories over one shared store, with the same rules, in memory, without a file,
/// a password or a C library.
///
/// Every repository sees the same records, so the rules that span entities hold
/// exactly as in the SQLCipher vault: a session needs an existing, active patient, a
/// diagnosis or an attachment an existing session, and a medication an existing
/// patient (`notFound`, field `patientID`, as the vault's foreign key reports it).
/// MedVault's conformance suite runs one test body against an `InMemoryVault` and a
/// SQLCipher vault and expects identical results, errors included.
///
/// Write app code against the repository protocols (``PatientRepository``,
/// ``MedicationStore``…), which both vaults' properties conform to; hand it
/// `vault.patients` from a `Vault` in the app and from an `InMemoryVault` in its tests
/// and previews.
///
/// For example:
///
/// ```swift
/// let vault = InMemoryVault(clock: .fixed(someInstant))
/// let ana = try await vault.patients.create(
///     Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
/// try await vault.sessions.create(ClinicalSession(patientID: ana.id, date: someInstant))
/// try await vault.medications.create(medication)   // notFound (patientID) for an unknown patient
/// ```
///
/// Its ``write(_:)`` runs a unit of work across repositories with the vault's
/// semantics: all or nothing, rolled back on an error or a cancellation.
public struct InMemoryVault: Sendable {
    /// The clock every repository reads "now" from.
    public let clock: RecordClock
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
    /// Medications, schedules and dose logs; it refuses a medication for a patient
    /// this vault does not have.
    public let medications: InMemoryMedicationStore
    /// The clinical tables, whose executor the medication tables share.
    let store: InMemoryClinicalStore

    /// The offline ICD-11 cache (see ``ICD11CachedCatalog``).
    public let icd11Cache = InMemoryICD11CacheRepository()

    /// Creates an empty vault.
    ///
    /// - Parameters:
    ///   - clock: Where "now" comes from (timestamps, the birth-date rule, missed doses).
    ///   - maximumAttachmentByteCount: The largest attachment accepted; 100 MiB by
    ///     default, as in `Vault.Options`.
    public init(clock: RecordClock = .system,
                maximumAttachmentByteCount: Int64 = InMemoryClinicalRecords.defaultMaximumAttachmentByteCount) {
        let records = InMemoryClinicalRecords(clock: clock, maximumAttachmentByteCount: maximumAttachmentByteCount)
        self.clock = clock
        self.professional = records.professional
        self.patients = records.patients
        self.sessions = records.sessions
        self.diagnoses = records.diagnoses
        self.attachments = records.attachments
        self.medications = InMemoryMedicationStore(clock: clock, patients: records.store)
        self.store = records.store
    }
}
