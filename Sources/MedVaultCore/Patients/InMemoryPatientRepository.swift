import Foundation

/// The in-memory ``PatientRepository``, from ``InMemoryClinicalRecords``.
public struct InMemoryPatientRepository: PatientRepository {
    let store: InMemoryClinicalStore

    @discardableResult
    public func create(_ patient: Patient) async throws -> Patient {
        try await store.createPatients([patient])[0]
    }

    @discardableResult
    public func create(_ patients: [Patient]) async throws -> [Patient] {
        try await store.createPatients(patients)
    }

    public func get(_ id: UUID) async throws -> Patient {
        try await store.getPatient(id)
    }

    @discardableResult
    public func update(_ patient: Patient) async throws -> Patient {
        try await store.updatePatient(patient)
    }

    @discardableResult
    public func deactivate(_ id: UUID) async throws -> Patient {
        try await store.setPatientActive(id, active: false)
    }

    @discardableResult
    public func reactivate(_ id: UUID) async throws -> Patient {
        try await store.setPatientActive(id, active: true)
    }

    public func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) async throws -> PatientPage {
        try await store.listPatients(filter: filter, after: cursor, limit: limit)
    }

    public func count(filter: PatientFilter) async throws -> Int {
        await store.countPatients(filter: filter)
    }

    public func search(_ query: String, filter: PatientFilter, limit: Int) async throws -> [Patient] {
        try await store.searchPatients(query, filter: filter, limit: limit)
    }
}
