import Foundation

extension InMemoryClinicalStore {
    func createSessions(_ inputs: [ClinicalSession]) throws -> [ClinicalSession] {
        let now = clock.now()
        var seen = Set<UUID>()
        var values: [ClinicalSession] = []
        values.reserveCapacity(inputs.count)
        for input in inputs {
            var value = try input.validated()
            guard let patient = patients[value.patientID] else { throw Self.notFound("patientID") }
            guard patient.isActive else {
                throw MedVaultError.validation("patientID", "the patient is inactive")
            }
            try SessionSigningRule.checkCreate(value, signatureRequired: signatureRequiredForCompletion)
            guard sessions[value.id] == nil, seen.insert(value.id).inserted else { throw Self.duplicate }
            value.createdAt = now
            value.updatedAt = now
            value.version = 1
            values.append(value)
        }
        for value in values {
            sessions[value.id] = value
            sessionIDsByPatient[value.patientID, default: []].insert(value.id)
        }
        return values
    }

    func countSessions() -> Int { sessions.count }

    func getSession(_ id: UUID) throws -> ClinicalSession {
        guard let session = sessions[id] else { throw Self.notFound() }
        return session
    }

    func updateSession(_ input: ClinicalSession) throws -> ClinicalSession {
        guard let stored = sessions[input.id] else { throw Self.notFound() }
        guard stored.version == input.version else { throw Self.conflict }
        var value = try input.validated()
        guard value.patientID == stored.patientID else {
            throw MedVaultError(.immutable, field: "patientID", reason: "a session cannot move to another patient")
        }
        if stored.status == .completed, value.status != .completed {
            throw Self.completedStatus
        }
        try SessionSigningRule.checkUpdate(from: stored, to: value, signed: signatures[value.id] != nil,
                                           signatureRequired: signatureRequiredForCompletion)
        value.createdAt = stored.createdAt
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        sessions[value.id] = value
        return value
    }

    static let completedStatus = MedVaultError(
        .immutable, field: "status", reason: "a completed session is part of the medical record")

    func cancelSession(_ id: UUID) throws -> ClinicalSession {
        guard let stored = sessions[id] else { throw Self.notFound() }
        if stored.status == .cancelled { return stored }
        guard stored.status != .completed else { throw Self.completedStatus }
        var value = stored
        value.status = .cancelled
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        sessions[id] = value
        return value
    }

    func deleteSession(_ id: UUID) throws {
        guard let stored = sessions[id] else { throw Self.notFound() }
        guard stored.status != .completed else { throw Self.completedStatus }
        guard signatures[id] == nil else { throw SessionSigningRule.signedSessionKept }
        guard diagnosisIDsBySession[id, default: []].isEmpty else {
            throw MedVaultError(.immutable, field: "diagnoses", reason: "a session with diagnoses cannot be deleted")
        }
        for attachmentID in attachmentIDsBySession[id, default: []] {
            attachments[attachmentID] = nil
            attachmentChunks[attachmentID] = nil
        }
        attachmentIDsBySession[id] = nil
        diagnosisIDsBySession[id] = nil
        sessionIDsByPatient[stored.patientID]?.remove(id)
        sessions[id] = nil
    }

    func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) throws -> SessionHistoryPage {
        try Self.checkLimit(limit)
        guard patients[patientID] != nil else { throw Self.notFound("patientID") }
        var candidates = sessionIDsByPatient[patientID, default: []].compactMap { sessions[$0] }
        if let cursor {
            candidates = candidates.filter(cursor.precedes)
        }
        candidates.sort {
            ClinicalSession.newer($0.date.millisecondsSince1970, $0.id, than: $1.date.millisecondsSince1970, $1.id)
        }
        let page = candidates.prefix(limit)
        let entries = page.map(historyEntry)
        let next = candidates.count > limit ? page.last.map(SessionHistoryCursor.init(after:)) : nil
        return SessionHistoryPage(entries: entries, nextCursor: next)
    }

    func searchNotes(_ query: String, patientID: UUID?, after cursor: SessionHistoryCursor?, limit: Int) throws
        -> SessionSearchPage
    {
        try Self.checkLimit(limit)
        if let patientID, patients[patientID] == nil { throw Self.notFound("patientID") }
        let queryTokens = SearchText.queryTokens(of: query)
        guard !queryTokens.isEmpty else { return SessionSearchPage(sessions: [], nextCursor: nil) }
        let scope = patientID.map { sessionIDsByPatient[$0, default: []].compactMap { sessions[$0] } }
            ?? Array(sessions.values)
        var candidates = scope.filter { session in
            let addendumTexts: [String] = addenda[session.id, default: []].flatMap { [$0.reason, $0.text] }
            let texts = [session.chiefComplaint, session.notes, session.treatmentPlan].compactMap { $0 } + addendumTexts
            return SearchText.matches(queryTokens: queryTokens, recordTokens: texts.flatMap(SearchText.tokens(of:)))
        }
        if let cursor { candidates = candidates.filter(cursor.precedes) }
        candidates.sort {
            ClinicalSession.newer($0.date.millisecondsSince1970, $0.id, than: $1.date.millisecondsSince1970, $1.id)
        }
        let page = Array(candidates.prefix(limit))
        let next = candidates.count > limit ? page.last.map(SessionHistoryCursor.init(after:)) : nil
        return SessionSearchPage(sessions: page, nextCursor: next)
    }

    func agenda(from start: Date, to end: Date) throws -> [ClinicalSession] {
        let startMS = start.millisecondsSince1970
        let endMS = end.millisecondsSince1970
        guard startMS <= endMS else {
            throw MedVaultError(.invalidArgument, reason: "the range ends before it starts")
        }
        return sessions.values
            .filter { (startMS..<endMS).contains($0.date.millisecondsSince1970) }
            .sorted {
                ClinicalSession.earlier($0.date.millisecondsSince1970, $0.id,
                                        than: $1.date.millisecondsSince1970, $1.id)
            }
    }
}
