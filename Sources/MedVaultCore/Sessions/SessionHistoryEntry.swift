/// One session of a patient's history with the diagnoses made in it, and, once signed,
/// its signature and addenda.
public struct SessionHistoryEntry: Sendable, Hashable {
    /// The session.
    public var session: ClinicalSession
    /// Its diagnoses, oldest `diagnosedAt` first (then by id).
    public var diagnoses: [Diagnosis]
    /// Its signature, `nil` while unsigned.
    public var signature: SessionSignature?
    /// Its addenda, in the order they were written.
    public var addenda: [SessionAddendum]

    /// Creates an entry.
    public init(session: ClinicalSession, diagnoses: [Diagnosis], signature: SessionSignature? = nil,
                addenda: [SessionAddendum] = []) {
        self.session = session
        self.diagnoses = diagnoses
        self.signature = signature
        self.addenda = addenda
    }

    /// Whether ``signature`` still seals the session's and diagnoses' content.
    public var signatureCheck: SessionSignatureCheck {
        SessionSigningRule.check(signature, session: session, diagnoses: diagnoses)
    }
}
