import Foundation

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
    /// The public key the store that read this entry derives for the signing professional
    /// (``signatureCheck`` says `verified` only for a signature under it); `nil` when the
    /// store holds no signing key. Set by the store: an entry's check is the reading
    /// vault's word, not the entry's own.
    public package(set) var trustedSigningKey: Data?

    /// Creates an entry.
    public init(session: ClinicalSession, diagnoses: [Diagnosis], signature: SessionSignature? = nil,
                addenda: [SessionAddendum] = [], trustedSigningKey: Data? = nil) {
        self.session = session
        self.diagnoses = diagnoses
        self.signature = signature
        self.addenda = addenda
        self.trustedSigningKey = trustedSigningKey
    }

    /// Whether ``signature`` still seals the session's and diagnoses' content, and by whom
    /// (see ``SessionSignatureCheck``).
    public var signatureCheck: SessionSignatureCheck {
        SessionSigningRule.check(signature, session: session, diagnoses: diagnoses, trustedKey: trustedSigningKey)
    }
}
