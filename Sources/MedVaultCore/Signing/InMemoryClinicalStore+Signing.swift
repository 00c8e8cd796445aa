import Foundation

extension InMemoryClinicalStore {
    func historyEntry(_ session: ClinicalSession) -> SessionHistoryEntry {
        let signature = signatures[session.id]
        return SessionHistoryEntry(session: session, diagnoses: diagnosesOfSession(session.id), signature: signature,
                                   addenda: addenda[session.id, default: []],
                                   trustedSigningKey: signature.flatMap { try? signer.publicKey(professionalID: $0.professionalID) })
    }

    func entry(_ id: UUID) throws -> SessionHistoryEntry {
        guard let session = sessions[id] else { throw Self.notFound() }
        return historyEntry(session)
    }

    func signSession(_ id: UUID, version: Int64) throws -> SessionSignature {
        guard let session = sessions[id] else { throw Self.notFound() }
        let signature = try SessionSigningRule.signature(
            of: session, diagnoses: diagnosesOfSession(id), version: version, alreadySigned: signatures[id] != nil,
            by: professional, at: clock.now(), signer: signer)
        signatures[id] = signature
        return signature
    }

    func addAddendum(to sessionID: UUID, reason: String, text: String) throws -> SessionAddendum {
        guard sessions[sessionID] != nil else { throw Self.notFound() }
        let addendum = try SessionSigningRule.addendum(
            to: sessionID, signed: signatures[sessionID] != nil, reason: reason, text: text, by: professional,
            at: clock.now())
        addenda[sessionID, default: []].append(addendum)
        return addendum
    }

    func setSignatureRequiredForCompletion(_ required: Bool) {
        signatureRequiredForCompletion = required
    }

    func isSignatureRequiredForCompletion() -> Bool { signatureRequiredForCompletion }
}
