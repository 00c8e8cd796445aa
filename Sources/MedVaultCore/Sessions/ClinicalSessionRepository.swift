import Foundation

/// Stores clinical sessions and reads a patient's history (HU-04, HU-05).
///
/// Rules: a session is created only for an existing, active patient; its patient
/// never changes; a completed session keeps its status and cannot be deleted; a
/// session with diagnoses cannot be deleted.
///
/// For example:
///
/// ```swift
/// let session = try await sessions.create(ClinicalSession(patientID: patient.id, date: .now))
/// let page = try await sessions.history(of: patient.id, after: nil, limit: 20)
/// for entry in page.entries { print(entry.session.date, entry.diagnoses.count) }
/// ```
public protocol ClinicalSessionRepository: Sendable {
    /// Stores a new session: version 1, `createdAt` = `updatedAt` = now.
    ///
    /// - Returns: The stored value (date truncated to milliseconds, blank texts as `nil`).
    /// - Throws: ``MedVaultError/Code/validation`` (see ``ClinicalSession/validationErrors()``;
    ///   field `patientID` when the patient is inactive); ``MedVaultError/Code/notFound``
    ///   (field `patientID`) when the patient does not exist; ``MedVaultError/Code/duplicate``
    ///   when the id exists. Nothing is written on error.
    @discardableResult
    func create(_ session: ClinicalSession) async throws -> ClinicalSession

    /// Stores many new sessions in one transaction: all or nothing.
    ///
    /// - Returns: The stored values, in the order given.
    /// - Throws: As ``create(_:)-(ClinicalSession)`` for the first failing session.
    @discardableResult
    func create(_ sessions: [ClinicalSession]) async throws -> [ClinicalSession]

    /// The session with `id`.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> ClinicalSession

    /// Replaces a session's fields (except `id`, `patientID` and `createdAt`).
    ///
    /// - Parameter session: The new value; its `version` must be the stored version.
    /// - Returns: The stored value, version + 1, `updatedAt` = now.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/conflict`` on a stale
    ///   version; ``MedVaultError/Code/immutable`` with field `patientID` when the patient
    ///   changes, or field `status` when a completed session would change status;
    ///   ``MedVaultError/Code/validation``. Nothing is written on error.
    @discardableResult
    func update(_ session: ClinicalSession) async throws -> ClinicalSession

    /// Cancels a scheduled session (status `cancelled`, version + 1). Cancelling a
    /// cancelled session changes nothing.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/immutable``
    ///   (field `status`) for a completed session.
    @discardableResult
    func cancel(_ id: UUID) async throws -> ClinicalSession

    /// Deletes a session that is not completed and has no diagnoses, with its attachments.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/immutable`` with
    ///   field `status` for a completed session, or field `diagnoses` when it has any.
    func delete(_ id: UUID) async throws

    /// A patient's sessions with their diagnoses, newest first (see ``SessionHistoryCursor``).
    ///
    /// - Parameters:
    ///   - patientID: The patient, active or not.
    ///   - cursor: Start after this position; `nil` for the newest.
    ///   - limit: The page size, at least 1.
    /// - Throws: ``MedVaultError/Code/notFound`` (field `patientID`);
    ///   ``MedVaultError/Code/invalidArgument`` when `limit` < 1.
    func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) async throws
        -> SessionHistoryPage

    /// The sessions of every patient starting in `[start, end)`, by date then id.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `end` < `start`.
    func agenda(from start: Date, to end: Date) async throws -> [ClinicalSession]

    /// The number of sessions stored, whatever their status (deleted ones are gone).
    ///
    /// For example:
    ///
    /// ```swift
    /// let total = try await vault.sessions.count()
    /// ```
    ///
    /// - Throws: A storage error.
    func count() async throws -> Int
}
