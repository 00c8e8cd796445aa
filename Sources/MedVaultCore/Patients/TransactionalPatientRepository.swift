import Foundation

/// Patients inside a unit of work (``VaultTransaction/patients``): the synchronous
/// mirror of ``PatientRepository``, with the same rules, results and errors, in the
/// unit's transaction. Reads see the unit's own writes.
public protocol TransactionalPatientRepository {
    /// Stores a new patient, as ``PatientRepository/create(_:)-(Patient)``.
    @discardableResult
    func create(_ patient: Patient) throws -> Patient

    /// Stores many new patients, as ``PatientRepository/create(_:)-([Patient])``.
    @discardableResult
    func create(_ patients: [Patient]) throws -> [Patient]

    /// The patient with `id`, as ``PatientRepository/get(_:)``.
    func get(_ id: UUID) throws -> Patient

    /// Replaces a patient's fields, as ``PatientRepository/update(_:)``.
    @discardableResult
    func update(_ patient: Patient) throws -> Patient

    /// Deactivates a patient, as ``PatientRepository/deactivate(_:)``.
    @discardableResult
    func deactivate(_ id: UUID) throws -> Patient

    /// Reactivates a patient, as ``PatientRepository/reactivate(_:)``.
    @discardableResult
    func reactivate(_ id: UUID) throws -> Patient

    /// One page of patients, as ``PatientRepository/list(filter:after:limit:)``.
    func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) throws -> PatientPage

    /// The number of patients passing `filter`, as ``PatientRepository/count(filter:)``.
    func count(filter: PatientFilter) throws -> Int

    /// Patients matching `query`, as ``PatientRepository/search(_:filter:limit:)``.
    func search(_ query: String, filter: PatientFilter, limit: Int) throws -> [Patient]
}

extension TransactionalPatientRepository {
    /// The first page of patients passing `filter` (active by default), `limit` per page.
    public func list(filter: PatientFilter = .active, limit: Int = 50) throws -> PatientPage {
        try list(filter: filter, after: nil, limit: limit)
    }

    /// The number of active patients.
    public func count() throws -> Int {
        try count(filter: .active)
    }

    /// Active patients matching `query`, at most `limit`.
    public func search(_ query: String, limit: Int = 50) throws -> [Patient] {
        try search(query, filter: .active, limit: limit)
    }
}
