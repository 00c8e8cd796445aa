import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalPatientRepository` of a unit of work: the SQL of
/// `SQLCipherPatientRepository`, on the unit's connection.
struct SQLCipherTransactionalPatientRepository: TransactionalPatientRepository {
    let unit: SQLCipherUnitOfWork

    func create(_ patient: Patient) throws -> Patient {
        try create([patient])[0]
    }

    func create(_ patients: [Patient]) throws -> [Patient] {
        let now = unit.clock.now()
        return try unit.writeChecked { db in
            try ClinicalSQL.insertCheckedBatch(patients, in: db, table: "patient") {
                try SQLCipherPatientRepository.stamped($0, now: now)
            } check: { _, _ in
                // A patient has no parent: only its id is checked.
            }
                insert: { db, patient in try SQLCipherPatientRepository.insert(patient, in: db) }
        }
    }

    func get(_ id: UUID) throws -> Patient {
        try unit.read { db in try SQLCipherPatientRepository.get(id, in: db) }
    }

    func update(_ patient: Patient) throws -> Patient {
        let clock = unit.clock
        return try unit.write { db in
            try SQLCipherPatientRepository.update(
                patient, validation: Result { try patient.validated(at: clock.now()) }, clock: clock, in: db)
        }
    }

    func deactivate(_ id: UUID) throws -> Patient {
        try unit.write { db in try SQLCipherPatientRepository.setActive(id, active: false, clock: unit.clock, in: db) }
    }

    func reactivate(_ id: UUID) throws -> Patient {
        try unit.write { db in try SQLCipherPatientRepository.setActive(id, active: true, clock: unit.clock, in: db) }
    }

    func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) throws -> PatientPage {
        try unit.read { db in try SQLCipherPatientRepository.list(filter: filter, after: cursor, limit: limit, in: db) }
    }

    func count(filter: PatientFilter) throws -> Int {
        try unit.read { db in try SQLCipherPatientRepository.count(filter: filter, in: db) }
    }

    func search(_ query: String, filter: PatientFilter, limit: Int) throws -> [Patient] {
        try unit.read { db in
            guard let tokens = try SQLCipherPatientRepository.searchTokens(query, limit: limit) else { return [] }
            return try PatientSearchIndex.search(tokens, filter: filter, limit: limit, in: db)
        }
    }
}
