import Foundation

/// The in-memory ``TransactionalPatientRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalPatientRepository: TransactionalPatientRepository {
    let store: InMemoryClinicalStore
    let scope: TransactionScope

    func create(_ patient: Patient) throws -> Patient {
        try create([patient])[0]
    }

    func create(_ patients: [Patient]) throws -> [Patient] {
        try store.inUnit(scope) { try $0.createPatients(patients) }
    }

    func get(_ id: UUID) throws -> Patient {
        try store.inUnit(scope) { try $0.getPatient(id) }
    }

    func update(_ patient: Patient) throws -> Patient {
        try store.inUnit(scope) { try $0.updatePatient(patient) }
    }

    func deactivate(_ id: UUID) throws -> Patient {
        try store.inUnit(scope) { try $0.setPatientActive(id, active: false) }
    }

    func reactivate(_ id: UUID) throws -> Patient {
        try store.inUnit(scope) { try $0.setPatientActive(id, active: true) }
    }

    func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) throws -> PatientPage {
        try store.inUnit(scope) { try $0.listPatients(filter: filter, after: cursor, limit: limit) }
    }

    func count(filter: PatientFilter) throws -> Int {
        try store.inUnit(scope) { $0.countPatients(filter: filter) }
    }

    func search(_ query: String, filter: PatientFilter, limit: Int) throws -> [Patient] {
        try store.inUnit(scope) { try $0.searchPatients(query, filter: filter, limit: limit) }
    }
}
