import Foundation

/// The tables behind the in-memory clinical repositories: one actor, so rules that
/// span entities (a session needs an active patient, history joins diagnoses) hold
/// atomically, like a transaction in the SQLCipher store.
///
/// Every mutating method checks everything before it changes anything: on error,
/// nothing is written.
actor InMemoryClinicalStore {
    let clock: RecordClock
    let maximumAttachmentByteCount: Int64

    var professional: Professional?

    var patients: [UUID: Patient] = [:]
    /// Cached folded tokens of each patient's searchable fields.
    var patientTokens: [UUID: [String]] = [:]
    /// Every patient's (sortKey, id), kept in patient order.
    var patientOrder: [PatientCursor] = []

    var sessions: [UUID: ClinicalSession] = [:]
    var sessionIDsByPatient: [UUID: Set<UUID>] = [:]

    var diagnoses: [UUID: Diagnosis] = [:]
    var diagnosisIDsBySession: [UUID: Set<UUID>] = [:]

    var attachments: [UUID: Attachment] = [:]
    var attachmentChunks: [UUID: [Data]] = [:]
    var attachmentIDsBySession: [UUID: Set<UUID>] = [:]

    var signatures: [UUID: SessionSignature] = [:]
    /// The store's signing key: random, one per store (a double has no vault key).
    let signer = InMemorySessionSigner()
    /// Each session's addenda, in the order written.
    var addenda: [UUID: [SessionAddendum]] = [:]
    var signatureRequiredForCompletion = false

    init(clock: RecordClock, maximumAttachmentByteCount: Int64) {
        self.clock = clock
        self.maximumAttachmentByteCount = maximumAttachmentByteCount
    }

    // MARK: - Professional

    func getProfessional() -> Professional? { professional }

    func saveProfessional(_ input: Professional) throws -> Professional {
        let value = try ProfessionalSaveRule.saved(try input.validated(), over: professional, now: clock.now())
        professional = value
        return value
    }

    // MARK: - Patients

    static let conflict = MedVaultError.recordConflict

    static func notFound(_ field: String? = nil) -> MedVaultError {
        MedVaultError.recordNotFound(field)
    }

    static let duplicate = MedVaultError.duplicateRecord

    static func checkLimit(_ limit: Int) throws {
        guard limit >= 1 else {
            throw MedVaultError(.invalidArgument, reason: "limit must be at least 1")
        }
    }

    func createPatients(_ inputs: [Patient]) throws -> [Patient] {
        let now = clock.now()
        var seen = Set<UUID>()
        var values: [Patient] = []
        values.reserveCapacity(inputs.count)
        for input in inputs {
            var value = try input.validated(at: now)
            guard patients[value.id] == nil, seen.insert(value.id).inserted else { throw Self.duplicate }
            value.deletedAt = nil
            value.createdAt = now
            value.updatedAt = now
            value.version = 1
            values.append(value)
        }
        for value in values {
            patients[value.id] = value
            patientTokens[value.id] = value.searchTokens
        }
        if values.count > 16 {
            patientOrder.append(contentsOf: values.map(PatientCursor.init(after:)))
            patientOrder.sort { Patient.ordered($0.sortKey, $0.id, before: $1.sortKey, $1.id) }
        } else {
            for value in values { insertInOrder(PatientCursor(after: value)) }
        }
        return values
    }

    /// Whether a patient, active or not, has `id`: what a foreign key to `patient`
    /// checks (patients are never deleted, so a `true` stays true).
    func hasPatient(_ id: UUID) -> Bool { patients[id] != nil }

    func getPatient(_ id: UUID) throws -> Patient {
        guard let patient = patients[id] else { throw Self.notFound() }
        return patient
    }

    func updatePatient(_ input: Patient) throws -> Patient {
        guard let stored = patients[input.id] else { throw Self.notFound() }
        guard stored.version == input.version else { throw Self.conflict }
        var value = try input.validated(at: clock.now())
        value.createdAt = stored.createdAt
        value.deletedAt = stored.deletedAt
        return storePatient(value, replacing: stored)
    }

    func setPatientActive(_ id: UUID, active: Bool) throws -> Patient {
        guard let stored = patients[id] else { throw Self.notFound() }
        guard stored.isActive != active else { return stored }
        var value = stored
        value.deletedAt = active ? nil : clock.now()
        return storePatient(value, replacing: stored)
    }

    /// Stores a changed patient: version + 1, updatedAt = now, caches refreshed.
    private func storePatient(_ input: Patient, replacing stored: Patient) -> Patient {
        var value = input
        value.version = stored.version + 1
        value.updatedAt = clock.now()
        patients[value.id] = value
        patientTokens[value.id] = value.searchTokens
        if value.sortKey != stored.sortKey {
            let old = PatientCursor(after: stored)
            let index = firstOrderIndex(after: nil, orAt: old)
            if index < patientOrder.count, patientOrder[index] == old {
                patientOrder.remove(at: index)
            }
            insertInOrder(PatientCursor(after: value))
        }
        return value
    }

    private func insertInOrder(_ position: PatientCursor) {
        patientOrder.insert(position, at: firstOrderIndex(after: nil, orAt: position))
    }

    /// The index of the first position strictly after `cursor` (when given), or else of
    /// the first position not before `position`.
    private func firstOrderIndex(after cursor: PatientCursor?, orAt position: PatientCursor? = nil) -> Int {
        var low = 0
        var high = patientOrder.count
        while low < high {
            let mid = (low + high) / 2
            let candidate = patientOrder[mid]
            let goRight: Bool
            if let cursor {
                goRight = !cursor.precedesPosition(candidate)
            } else if let position {
                goRight = Patient.ordered(candidate.sortKey, candidate.id, before: position.sortKey, position.id)
            } else {
                goRight = false
            }
            if goRight { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func listPatients(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) throws -> PatientPage {
        try Self.checkLimit(limit)
        var result: [Patient] = []
        var index = firstOrderIndex(after: cursor)
        var more = false
        while index < patientOrder.count {
            if let patient = patients[patientOrder[index].id], filter.includes(patient) {
                if result.count == limit {
                    more = true
                    break
                }
                result.append(patient)
            }
            index += 1
        }
        let next = more ? result.last.map(PatientCursor.init(after:)) : nil
        return PatientPage(patients: result, nextCursor: next)
    }

    func countPatients(filter: PatientFilter) -> Int {
        filter == .all ? patients.count : patients.values.lazy.filter(filter.includes).count
    }

    func searchPatients(_ query: String, filter: PatientFilter, limit: Int) throws -> [Patient] {
        try Self.checkLimit(limit)
        let queryTokens = SearchText.tokens(of: query)
        guard !queryTokens.isEmpty else { return [] }
        var result: [Patient] = []
        for position in patientOrder {
            guard let patient = patients[position.id], filter.includes(patient),
                  let tokens = patientTokens[position.id],
                  SearchText.matches(queryTokens: queryTokens, recordTokens: tokens)
            else { continue }
            result.append(patient)
            if result.count == limit { break }
        }
        return result
    }
}

extension PatientCursor {
    /// Whether `position` comes strictly after this cursor.
    func precedesPosition(_ position: PatientCursor) -> Bool {
        Patient.ordered(sortKey, id, before: position.sortKey, position.id)
    }
}
