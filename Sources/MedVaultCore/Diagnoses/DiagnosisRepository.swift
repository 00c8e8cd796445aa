import Foundation

/// Stores ICD-11 diagnoses. Diagnoses are part of the medical record: their snapshot
/// never changes and there is no delete method.
///
/// For example:
///
/// ```swift
/// var stored = try await diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot,
///                                                   diagnosedAt: .now))
/// stored.severity = .severe
/// stored = try await diagnoses.update(stored)       // version 2
/// let all = try await diagnoses.list(patientID: patient.id)   // newest first
/// ```
public protocol DiagnosisRepository: Sendable {
    /// Stores a new diagnosis: version 1, `createdAt` = `updatedAt` = now.
    ///
    /// - Returns: The stored value.
    /// - Throws: ``MedVaultError/Code/validation`` (see ``Diagnosis/validationErrors()``);
    ///   ``MedVaultError/Code/notFound`` (field `sessionID`) when the session does not
    ///   exist; ``MedVaultError/Code/duplicate`` when the id exists. Nothing is written on error.
    @discardableResult
    func create(_ diagnosis: Diagnosis) async throws -> Diagnosis

    /// Stores many new diagnoses in one transaction: all or nothing.
    ///
    /// - Returns: The stored values, in the order given.
    /// - Throws: As ``create(_:)-(Diagnosis)`` for the first failing diagnosis.
    @discardableResult
    func create(_ diagnoses: [Diagnosis]) async throws -> [Diagnosis]

    /// The diagnosis with `id`.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> Diagnosis

    /// Amends a diagnosis's type, severity and clinical notes.
    ///
    /// - Parameter diagnosis: The amended value; its `version` must be the stored version.
    /// - Returns: The stored value, version + 1, `updatedAt` = now.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/conflict`` on a stale
    ///   version; ``MedVaultError/Code/immutable`` naming the first fixed field changed (see
    ///   ``Diagnosis/firstChangedFixedField(in:)``); ``MedVaultError/Code/validation``.
    ///   Nothing is written on error.
    @discardableResult
    func update(_ diagnosis: Diagnosis) async throws -> Diagnosis

    /// The diagnoses of a session, oldest `diagnosedAt` first (then by id).
    ///
    /// - Throws: ``MedVaultError/Code/notFound`` (field `sessionID`).
    func list(sessionID: UUID) async throws -> [Diagnosis]

    /// A patient's diagnoses across all sessions, newest `diagnosedAt` first (then by
    /// id, descending).
    ///
    /// - Throws: ``MedVaultError/Code/notFound`` (field `patientID`).
    func list(patientID: UUID) async throws -> [Diagnosis]

    /// The number of diagnoses stored, across every patient and session.
    ///
    /// - Throws: A storage error.
    func count() async throws -> Int
}
