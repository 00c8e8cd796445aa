import Foundation

/// The in-memory ``DiagnosisRepository``, from ``InMemoryClinicalRecords``.
public struct InMemoryDiagnosisRepository: DiagnosisRepository {
    let store: InMemoryClinicalStore

    @discardableResult
    public func create(_ diagnosis: Diagnosis) async throws -> Diagnosis {
        try await store.createDiagnoses([diagnosis])[0]
    }

    @discardableResult
    public func create(_ diagnoses: [Diagnosis]) async throws -> [Diagnosis] {
        try await store.createDiagnoses(diagnoses)
    }

    public func get(_ id: UUID) async throws -> Diagnosis {
        try await store.getDiagnosis(id)
    }

    @discardableResult
    public func update(_ diagnosis: Diagnosis) async throws -> Diagnosis {
        try await store.updateDiagnosis(diagnosis)
    }

    public func list(sessionID: UUID) async throws -> [Diagnosis] {
        try await store.listDiagnoses(sessionID: sessionID)
    }

    public func list(patientID: UUID) async throws -> [Diagnosis] {
        try await store.listDiagnoses(patientID: patientID)
    }

    public func count() async throws -> Int {
        await store.countDiagnoses()
    }
}
