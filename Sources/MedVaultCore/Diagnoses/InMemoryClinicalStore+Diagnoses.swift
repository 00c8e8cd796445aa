import Foundation

extension InMemoryClinicalStore {
    func createDiagnoses(_ inputs: [Diagnosis]) throws -> [Diagnosis] {
        let now = clock.now()
        var seen = Set<UUID>()
        var values: [Diagnosis] = []
        values.reserveCapacity(inputs.count)
        for input in inputs {
            var value = try input.validated()
            guard sessions[value.sessionID] != nil else { throw Self.notFound("sessionID") }
            try SessionSigningRule.checkDiagnosisCreate(sessionSigned: signatures[value.sessionID] != nil)
            guard diagnoses[value.id] == nil, seen.insert(value.id).inserted else { throw Self.duplicate }
            value.createdAt = now
            value.updatedAt = now
            value.version = 1
            values.append(value)
        }
        for value in values {
            diagnoses[value.id] = value
            diagnosisIDsBySession[value.sessionID, default: []].insert(value.id)
        }
        return values
    }

    func countDiagnoses() -> Int { diagnoses.count }

    func getDiagnosis(_ id: UUID) throws -> Diagnosis {
        guard let diagnosis = diagnoses[id] else { throw Self.notFound() }
        return diagnosis
    }

    func updateDiagnosis(_ input: Diagnosis) throws -> Diagnosis {
        guard let stored = diagnoses[input.id] else { throw Self.notFound() }
        guard stored.version == input.version else { throw Self.conflict }
        var value = try input.validated()
        if let field = stored.firstChangedFixedField(in: value) {
            throw MedVaultError(.immutable, field: field, reason: "this part of a diagnosis is fixed once saved")
        }
        try SessionSigningRule.checkDiagnosisUpdate(from: stored, to: value,
                                                    sessionSigned: signatures[stored.sessionID] != nil)
        value.createdAt = stored.createdAt
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        diagnoses[value.id] = value
        return value
    }

    /// A session's diagnoses, oldest first.
    func diagnosesOfSession(_ sessionID: UUID) -> [Diagnosis] {
        diagnosisIDsBySession[sessionID, default: []].compactMap { diagnoses[$0] }.sorted {
            ClinicalSession.earlier($0.diagnosedAt.millisecondsSince1970, $0.id,
                                    than: $1.diagnosedAt.millisecondsSince1970, $1.id)
        }
    }

    func listDiagnoses(sessionID: UUID) throws -> [Diagnosis] {
        guard sessions[sessionID] != nil else { throw Self.notFound("sessionID") }
        return diagnosesOfSession(sessionID)
    }

    func listDiagnoses(patientID: UUID) throws -> [Diagnosis] {
        guard patients[patientID] != nil else { throw Self.notFound("patientID") }
        return sessionIDsByPatient[patientID, default: []]
            .flatMap { diagnosisIDsBySession[$0, default: []] }
            .compactMap { diagnoses[$0] }
            .sorted {
                ClinicalSession.newer($0.diagnosedAt.millisecondsSince1970, $0.id,
                                      than: $1.diagnosedAt.millisecondsSince1970, $1.id)
            }
    }
}
