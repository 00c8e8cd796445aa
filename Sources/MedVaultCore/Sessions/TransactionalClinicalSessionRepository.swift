import Foundation

/// Clinical sessions inside a unit of work (``VaultTransaction/sessions``): the
/// synchronous mirror of ``ClinicalSessionRepository``, with the same rules, results
/// and errors, in the unit's transaction. Reads see the unit's own writes.
public protocol TransactionalClinicalSessionRepository {
    /// Stores a new session, as ``ClinicalSessionRepository/create(_:)-(ClinicalSession)``.
    @discardableResult
    func create(_ session: ClinicalSession) throws -> ClinicalSession

    /// Stores many new sessions, as ``ClinicalSessionRepository/create(_:)-([ClinicalSession])``.
    @discardableResult
    func create(_ sessions: [ClinicalSession]) throws -> [ClinicalSession]

    /// The session with `id`, as ``ClinicalSessionRepository/get(_:)``.
    func get(_ id: UUID) throws -> ClinicalSession

    /// Replaces a session's fields, as ``ClinicalSessionRepository/update(_:)``.
    @discardableResult
    func update(_ session: ClinicalSession) throws -> ClinicalSession

    /// Cancels a session, as ``ClinicalSessionRepository/cancel(_:)``.
    @discardableResult
    func cancel(_ id: UUID) throws -> ClinicalSession

    /// Deletes a session, as ``ClinicalSessionRepository/delete(_:)``.
    func delete(_ id: UUID) throws

    /// A page of a patient's history, as ``ClinicalSessionRepository/history(of:after:limit:)``.
    func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) throws -> SessionHistoryPage

    /// Sessions in a date range, as ``ClinicalSessionRepository/agenda(from:to:)``.
    func agenda(from start: Date, to end: Date) throws -> [ClinicalSession]

    /// The number of sessions, as ``ClinicalSessionRepository/count()``.
    func count() throws -> Int

    /// Signs a session, as ``ClinicalSessionRepository/sign(_:version:)``.
    @discardableResult
    func sign(_ id: UUID, version: Int64) throws -> SessionSignature

    /// Appends an addendum, as ``ClinicalSessionRepository/addAddendum(to:reason:text:)``.
    @discardableResult
    func addAddendum(to sessionID: UUID, reason: String, text: String) throws -> SessionAddendum

    /// One session with its diagnoses, signature and addenda, as ``ClinicalSessionRepository/entry(_:)``.
    func entry(_ id: UUID) throws -> SessionHistoryEntry
}
