import Foundation

/// The in-memory ``TransactionalDiagnosisRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalDiagnosisRepository: TransactionalDiagnosisRepository {
    let store: InMemoryClinicalStore
    let scope: TransactionScope

    func create(_ diagnosis: Diagnosis) throws -> Diagnosis {
        try create([diagnosis])[0]
    }

    func create(_ diagnoses: [Diagnosis]) throws -> [Diagnosis] {
        try store.inUnit(scope) { try $0.createDiagnoses(diagnoses) }
    }

    func get(_ id: UUID) throws -> Diagnosis {
        try store.inUnit(scope) { try $0.getDiagnosis(id) }
    }

    func update(_ diagnosis: Diagnosis) throws -> Diagnosis {
        try store.inUnit(scope) { try $0.updateDiagnosis(diagnosis) }
    }

    func list(sessionID: UUID) throws -> [Diagnosis] {
        try store.inUnit(scope) { try $0.listDiagnoses(sessionID: sessionID) }
    }

    func list(patientID: UUID) throws -> [Diagnosis] {
        try store.inUnit(scope) { try $0.listDiagnoses(patientID: patientID) }
    }

    func count() throws -> Int {
        try store.inUnit(scope) { $0.countDiagnoses() }
    }
}
