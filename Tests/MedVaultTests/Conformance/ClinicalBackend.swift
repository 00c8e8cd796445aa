import Foundation
import MedVaultCore
import Testing

/// What a conformance test asks of a backend when it makes fresh repositories.
struct ClinicalBackendOptions: Sendable {
    /// The clock the repositories must use for every timestamp and rule.
    var clock: RecordClock
    /// The attachment size limit the repositories must enforce.
    var maximumAttachmentByteCount: Int64 = 8 * 1024 * 1024
}

/// The five clinical repositories of one backend, sharing one store.
struct ClinicalRepositories: Sendable {
    var professional: any ProfessionalRepository
    var patients: any PatientRepository
    var sessions: any ClinicalSessionRepository
    var diagnoses: any DiagnosisRepository
    var attachments: any AttachmentRepository
    /// Releases the backend's resources (closes connections, removes temporary files).
    var close: @Sendable () async throws -> Void = {}
}

/// A backend the shared conformance suite runs against: every test in this folder is
/// `@Test(arguments: ClinicalBackend.all)` and uses the repositories only through
/// their protocols, so each implementation must behave identically.
struct ClinicalBackend: Sendable, CustomTestStringConvertible {
    /// Shown in test names: `patientCreate(backend: in-memory)`.
    let name: String
    /// Makes fresh, empty repositories.
    let make: @Sendable (ClinicalBackendOptions) async throws -> ClinicalRepositories

    var testDescription: String { name }

    /// MedVaultCore's in-memory repositories.
    static let inMemory = ClinicalBackend(name: "in-memory") { options in
        let records = InMemoryClinicalRecords(
            clock: options.clock, maximumAttachmentByteCount: options.maximumAttachmentByteCount)
        return ClinicalRepositories(
            professional: records.professional, patients: records.patients, sessions: records.sessions,
            diagnoses: records.diagnoses, attachments: records.attachments)
    }

    /// Every backend the suite runs against.
    static let all: [ClinicalBackend] = [
        .inMemory,
        // SQLCipher: append the SQLCipher-backed backend here (a fresh vault in a temporary
        // directory per `make`, repositories keyed with a test key, `close` removing the
        // directory). It must pass this suite unchanged.
    ]
}
