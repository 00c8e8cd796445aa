import Foundation

/// Diagnoses inside a unit of work (``VaultTransaction/diagnoses``): the synchronous
/// mirror of ``DiagnosisRepository``, with the same rules, results and errors, in the
/// unit's transaction. Reads see the unit's own writes.
public protocol TransactionalDiagnosisRepository {
    /// Stores a new diagnosis, as ``DiagnosisRepository/create(_:)-(Diagnosis)``.
    @discardableResult
    func create(_ diagnosis: Diagnosis) throws -> Diagnosis

    /// Stores many new diagnoses, as ``DiagnosisRepository/create(_:)-([Diagnosis])``.
    @discardableResult
    func create(_ diagnoses: [Diagnosis]) throws -> [Diagnosis]

    /// The diagnosis with `id`, as ``DiagnosisRepository/get(_:)``.
    func get(_ id: UUID) throws -> Diagnosis

    /// Amends a diagnosis, as ``DiagnosisRepository/update(_:)``.
    @discardableResult
    func update(_ diagnosis: Diagnosis) throws -> Diagnosis

    /// A session's diagnoses, as ``DiagnosisRepository/list(sessionID:)``.
    func list(sessionID: UUID) throws -> [Diagnosis]

    /// A patient's diagnoses, as ``DiagnosisRepository/list(patientID:)``.
    func list(patientID: UUID) throws -> [Diagnosis]

    /// The number of diagnoses, as ``DiagnosisRepository/count()``.
    func count() throws -> Int
}
