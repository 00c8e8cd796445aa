import Foundation
import MedVaultCore

/// The five SQLCipher clinical repositories over one database, as the `Vault` exposes
/// them: the persistent counterpart of `InMemoryClinicalRecords`.
///
/// Cross-entity rules (a session needs an active patient, a diagnosis an existing
/// session) hold because every repository reads and writes the same database in
/// transactions, with triggers and foreign keys as the last line of defence.
///
/// For example:
///
/// ```swift
/// let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
///                                        migrator: MedVaultSchema.migrator)
/// let records = SQLCipherClinicalRecords(pool: pool)
/// let patient = try await records.patients.create(
///     Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
/// try await records.sessions.create(ClinicalSession(patientID: patient.id, date: .now))
/// ```
public struct SQLCipherClinicalRecords: Sendable {
    /// The vault owner's profile.
    public let professional: SQLCipherProfessionalRepository
    /// Patients.
    public let patients: SQLCipherPatientRepository
    /// Clinical sessions.
    public let sessions: SQLCipherClinicalSessionRepository
    /// Diagnoses.
    public let diagnoses: SQLCipherDiagnosisRepository
    /// Attachments.
    public let attachments: SQLCipherAttachmentRepository

    /// Creates the repositories over `pool`, whose schema is ``MedVaultSchema/migrator``'s.
    ///
    /// - Parameters:
    ///   - pool: The open database.
    ///   - clock: Where "now" comes from (timestamps, the birth-date rule).
    ///   - maximumAttachmentByteCount: The largest attachment accepted.
    public init(pool: VaultDatabase, clock: RecordClock = .system,
                maximumAttachmentByteCount: Int64 = SQLCipherAttachmentRepository.defaultMaximumByteCount) {
        professional = SQLCipherProfessionalRepository(pool: pool, clock: clock)
        patients = SQLCipherPatientRepository(pool: pool, clock: clock)
        sessions = SQLCipherClinicalSessionRepository(pool: pool, clock: clock)
        diagnoses = SQLCipherDiagnosisRepository(pool: pool, clock: clock)
        attachments = SQLCipherAttachmentRepository(pool: pool, clock: clock,
                                                    maximumByteCount: maximumAttachmentByteCount)
    }
}
