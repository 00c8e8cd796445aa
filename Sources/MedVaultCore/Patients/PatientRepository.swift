import Foundation

/// Stores patients. Patients are never physically deleted: there is no delete method.
///
/// For example:
///
/// ```swift
/// let created = try await patients.create(Patient(firstName: "José", lastName: "García",
///                                                 dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
/// var page = try await patients.list()
/// while let cursor = page.nextCursor {
///     page = try await patients.list(filter: .active, after: cursor, limit: 50)
/// }
/// let found = try await patients.search("jose gar")
/// ```
public protocol PatientRepository: Sendable {
    /// Stores a new patient: version 1, `createdAt` = `updatedAt` = now, `deletedAt` = nil.
    ///
    /// - Returns: The stored value (blank optional fields stored as `nil`).
    /// - Throws: ``MedVaultError/Code/validation`` (see ``Patient/validationErrors(at:)``,
    ///   evaluated at the repository clock's now); ``MedVaultError/Code/duplicate`` when
    ///   the id exists. Nothing is written on error.
    @discardableResult
    func create(_ patient: Patient) async throws -> Patient

    /// Stores many new patients in one transaction: all or nothing.
    ///
    /// - Returns: The stored values, in the order given.
    /// - Throws: As ``create(_:)-(Patient)`` for the first failing patient (also
    ///   ``MedVaultError/Code/duplicate`` for an id repeated in `patients`).
    @discardableResult
    func create(_ patients: [Patient]) async throws -> [Patient]

    /// The patient with `id`, active or not.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> Patient

    /// Replaces a patient's fields (everything except `id`, `createdAt` and `deletedAt`,
    /// which keep their stored values).
    ///
    /// - Parameter patient: The new value; its `version` must be the stored version.
    /// - Returns: The stored value, version + 1, `updatedAt` = now.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/conflict`` on a
    ///   stale version; ``MedVaultError/Code/validation``. Nothing is written on error.
    @discardableResult
    func update(_ patient: Patient) async throws -> Patient

    /// Deactivates a patient: sets `deletedAt` = now (version + 1). Deactivating an
    /// inactive patient changes nothing and returns it as stored.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    @discardableResult
    func deactivate(_ id: UUID) async throws -> Patient

    /// Reactivates a patient: clears `deletedAt` (version + 1). Reactivating an active
    /// patient changes nothing and returns it as stored.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    @discardableResult
    func reactivate(_ id: UUID) async throws -> Patient

    /// One page of patients in patient order (``Patient/sortKey``, then id).
    ///
    /// - Parameters:
    ///   - filter: Which patients (active by default in the extension overload).
    ///   - cursor: Start after this position; `nil` for the first page.
    ///   - limit: The page size, at least 1.
    /// - Returns: The page and, when more patients follow, the next cursor.
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `limit` < 1.
    func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) async throws -> PatientPage

    /// The number of patients passing `filter`.
    func count(filter: PatientFilter) async throws -> Int

    /// Patients whose names, national id, email or phone match `query`, in patient order.
    ///
    /// Matching is ``SearchText/matches(query:in:)``'s: case- and accent-insensitive,
    /// every query token a prefix of a token of one of the fields ("jose gar" finds
    /// "José García"). A query without tokens finds nothing. The SQLCipher
    /// implementation indexes each patient's folded tokens in patient order, so the
    /// first `limit` results cost about the same in a small clinic and a large one.
    ///
    /// - Parameters:
    ///   - query: The text typed by the user.
    ///   - filter: Which patients to search.
    ///   - limit: The maximum number of results, at least 1.
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `limit` < 1.
    func search(_ query: String, filter: PatientFilter, limit: Int) async throws -> [Patient]
}

extension PatientRepository {
    /// The first page of patients passing `filter` (active by default), `limit` per page.
    public func list(filter: PatientFilter = .active, limit: Int = 50) async throws -> PatientPage {
        try await list(filter: filter, after: nil, limit: limit)
    }

    /// The number of active patients.
    public func count() async throws -> Int {
        try await count(filter: .active)
    }

    /// Searches active patients, at most `limit` results.
    public func search(_ query: String, limit: Int = 50) async throws -> [Patient] {
        try await search(query, filter: .active, limit: limit)
    }
}
