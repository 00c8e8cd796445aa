import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalDiagnosisRepository` of a unit of work: the SQL of
/// `SQLCipherDiagnosisRepository`, on the unit's connection.
struct SQLCipherTransactionalDiagnosisRepository: TransactionalDiagnosisRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherDiagnosisRepository

    func create(_ diagnosis: Diagnosis) throws -> Diagnosis {
        try create([diagnosis])[0]
    }

    func create(_ diagnoses: [Diagnosis]) throws -> [Diagnosis] {
        let now = unit.clock.now()
        return try unit.writeChecked { db in
            try ClinicalSQL.insertCheckedBatch(diagnoses, in: db, table: "diagnosis") { try SQL.stamped($0, now: now) }
                check: { db, diagnosis in try SQL.checkParent(diagnosis, in: db) }
                insert: { db, diagnosis in try SQL.insertRow(diagnosis, in: db) }
        }
    }

    func get(_ id: UUID) throws -> Diagnosis {
        try unit.read { db in try SQL.fetch(id, db) }
    }

    func update(_ diagnosis: Diagnosis) throws -> Diagnosis {
        try unit.write { db in
            try SQL.update(diagnosis, validation: Result { try diagnosis.validated() }, clock: unit.clock, in: db)
        }
    }

    func list(sessionID: UUID) throws -> [Diagnosis] {
        try unit.read { db in try SQL.list(sessionID: sessionID, in: db) }
    }

    func list(patientID: UUID) throws -> [Diagnosis] {
        try unit.read { db in try SQL.list(patientID: patientID, in: db) }
    }

    func count() throws -> Int {
        try unit.read { db in try SQL.count(in: db) }
    }
}
