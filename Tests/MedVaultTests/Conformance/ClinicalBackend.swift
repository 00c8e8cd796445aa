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
///
/// Notes for the SQLCipher implementation, so it agrees with the in-memory one:
/// - Validate with the shared value methods (`Patient.validated(at:)`,
///   `ClinicalSession.validated()`, `Diagnosis.validated()`, `NewAttachment.validate()`,
///   `Professional.validated()`) and store what they return; read "now" from the clock.
/// - Patient order: store `Patient.sortKey` in a column (BINARY collation) and ids as
///   upper-case `uuidString` text (or 16-byte blobs: same order); page with
///   `sort_key > ? OR (sort_key = ? AND id > ?)` (see `PatientCursor`).
/// - History: `date_ms < ? OR (date_ms = ? AND id < ?)`, `ORDER BY date_ms DESC, id DESC`;
///   diagnoses inside an entry `ORDER BY diagnosed_at_ms, id`. Agenda: `[start, end)` by ms.
/// - Search: an FTS4 table `tokenize=unicode61 "remove_diacritics=1"` over first name, last
///   name, national id, email and phone; query each `SearchText.tokens(of:)` token as
///   `token*`; no tokens → no results; results in patient order with the filter and limit.
/// - Batch `create([...])`: one transaction, all or nothing, same errors as single creates.
/// - Attachments: read the input sequence chunk by chunk into a chunk table while hashing
///   with `SHA256Hasher`, stop with `.validation("content")` past the limit, roll back on
///   any error; stream out with `AsyncThrowingStream(unfolding:)`, verify size and digest
///   at the end (`.corrupted`).
struct ClinicalBackend: Sendable, CustomTestStringConvertible {
    /// Shown in test names: `patientCreate(backend: in-memory)`.
    let name: String
    /// Makes fresh, empty repositories.
    let make: @Sendable (ClinicalBackendOptions) async throws -> ClinicalRepositories

    var testDescription: String { name }

    /// MedVaultCore's in-memory vault: the repositories an app gets from `InMemoryVault`.
    static let inMemory = ClinicalBackend(name: "in-memory") { options in
        let vault = InMemoryVault(
            clock: options.clock, maximumAttachmentByteCount: options.maximumAttachmentByteCount)
        return ClinicalRepositories(
            professional: vault.professional, patients: vault.patients, sessions: vault.sessions,
            diagnoses: vault.diagnoses, attachments: vault.attachments)
    }

    /// Every backend the suite runs against.
    static let all: [ClinicalBackend] = [
        .inMemory,
        .sqlCipher,  // Tests/MedVaultTests/Clinical/SQLCipherClinicalBackend.swift
    ]
}
