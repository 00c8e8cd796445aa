import Foundation

/// The repositories of one unit of work: every call runs in the same write
/// transaction, which commits once, when the closure given to ``VaultWriter/write(_:)``
/// returns, or rolls back entirely when it throws.
///
/// The methods are synchronous: the closure holds the vault's single writer, so
/// nothing can await inside it. A read sees the unit's own earlier writes.
///
/// For example:
///
/// ```swift
/// let diagnosis = try await vault.write { tx in
///     let patient = try tx.patients.create(Patient(firstName: "Ana", lastName: "Ruiz",
///                                                  dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
///     let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: .now))
///     return try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, diagnosedAt: .now))
/// }
/// ```
///
/// A transaction value must not be stored or used after its closure returns: it is
/// not `Sendable`, and every method of one whose unit of work ended throws
/// ``MedVaultError/Code/invalidArgument`` without touching storage.
///
/// Attachments are not part of a unit of work: their content streams in chunks over
/// several transactions (so a large file never sits in memory), which one short
/// write transaction cannot hold. Add them after the unit commits, with the
/// attachment repository.
public struct VaultTransaction {
    /// The vault owner's profile.
    public let professional: any TransactionalProfessionalRepository
    /// Patients.
    public let patients: any TransactionalPatientRepository
    /// Clinical sessions.
    public let sessions: any TransactionalClinicalSessionRepository
    /// Diagnoses.
    public let diagnoses: any TransactionalDiagnosisRepository
    /// Medications, with their schedules and dose logs.
    public let medications: any TransactionalMedicationStore

    /// A transaction over a backend's transactional repositories (for the backends).
    package init(professional: any TransactionalProfessionalRepository,
                 patients: any TransactionalPatientRepository,
                 sessions: any TransactionalClinicalSessionRepository,
                 diagnoses: any TransactionalDiagnosisRepository,
                 medications: any TransactionalMedicationStore) {
        self.professional = professional
        self.patients = patients
        self.sessions = sessions
        self.diagnoses = diagnoses
        self.medications = medications
    }
}

@available(*, unavailable, message: "a transaction must not leave its write closure")
extension VaultTransaction: Sendable {}
