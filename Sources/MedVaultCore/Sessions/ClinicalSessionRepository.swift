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

    /// The sessions whose clinical text matches `query`, newest first (history order),
    /// a page at a time.
    ///
    /// A session's clinical text is its chief complaint, notes and treatment plan and
    /// its addenda's reasons and texts. It matches when every word of `query` starts a
    /// word of that text, case- and accent-insensitively (``SearchText``): "insom"
    /// finds "Insomnio", "ansiedad" finds "Ansiedad". A query without a letter or digit
    /// matches nothing.
    ///
    /// For example:
    ///
    /// ```swift
    /// var page = try await vault.sessions.searchNotes("insomnio", patientID: patient.id, after: nil, limit: 20)
    /// while let next = page.nextCursor {
    ///     page = try await vault.sessions.searchNotes("insomnio", patientID: patient.id, after: next, limit: 20)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - query: What the user typed.
    ///   - patientID: Search this patient's sessions only (active or not); `nil` for
    ///     every patient of the practice.
    ///   - cursor: Start after this position; `nil` for the newest.
    ///   - limit: The page size, at least 1.
    /// - Throws: ``MedVaultError/Code/notFound`` (field `patientID`) for an unknown
    ///   patient; ``MedVaultError/Code/invalidArgument`` when `limit` < 1.
    func searchNotes(_ query: String, patientID: UUID?, after cursor: SessionHistoryCursor?, limit: Int) async throws
        -> SessionSearchPage
    /// The sessions of every patient starting in `[start, end)`, by date then id.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `end` < `start`.
    func agenda(from start: Date, to end: Date) async throws -> [ClinicalSession]

    // MARK: - Signing (see SessionSigningRule)

    /// Signs the session's clinical content (chief complaint, notes, treatment plan, its
    /// diagnoses' clinical notes) as the vault's professional, now. From then on that
    /// content never changes, the session is never deleted and takes no new diagnosis;
    /// corrections are addenda (``addAddendum(to:reason:text:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let signature = try await vault.sessions.sign(session.id, version: session.version)
    /// ```
    ///
    /// - Parameters:
    ///   - id: The session.
    ///   - version: The version the professional read and signs.
    /// - Returns: The signature: who, when, the SHA-256 of ``SessionSigningContent``.
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown session, or with field
    ///   `professional` when the vault has no professional; ``MedVaultError/Code/conflict``
    ///   on a stale version; ``MedVaultError/Code/immutable`` (field `signature`) when
    ///   signed already. Nothing is written on error.
    @discardableResult
    func sign(_ id: UUID, version: Int64) async throws -> SessionSignature

    /// Appends an addendum to a signed session, written by the vault's professional now.
    ///
    /// - Returns: The stored addendum.
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown session (or field
    ///   `professional`); ``MedVaultError/Code/validation`` with field `sessionID` for an
    ///   unsigned session, or `reason` / `text` when blank or too long. Nothing is
    ///   written on error.
    @discardableResult
    func addAddendum(to sessionID: UUID, reason: String, text: String) async throws -> SessionAddendum

    /// One session with its diagnoses, signature and addenda (in order).
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func entry(_ id: UUID) async throws -> SessionHistoryEntry

    /// Whether a session must be signed before it is completed (default `false`).
    /// Stored with the records, so every app and process opening the vault honours it.
    ///
    /// - Throws: A storage error.
    func signatureRequiredForCompletion() async throws -> Bool

    /// Sets whether a session must be signed before it is completed: when `true`, an
    /// update to `completed` of an unsigned session, and a new session created
    /// completed, fail with ``MedVaultError/Code/validation`` (field `signature`).
    ///
    /// - Throws: A storage error.
    func setSignatureRequiredForCompletion(_ required: Bool) async throws

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
