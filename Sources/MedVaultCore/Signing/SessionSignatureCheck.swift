/// What a signature check found: see `verifySignature(of:)`.
public enum SessionSignatureCheck: Sendable, Hashable {
    /// The session has no signature.
    case unsigned
    /// The content matches the signature's digest, and its Ed25519 signature verifies
    /// under the signing key this vault derives for the signing professional.
    case verified
    /// The content matches and the Ed25519 signature verifies, but under another key than
    /// this vault's for that professional: a record imported from another vault, or one
    /// rewritten and signed again by someone without this vault's key. Check the key
    /// (``SessionSignature/signerPublicKey``) out of band before trusting it.
    case signedByAnotherKey
    /// The content matches the signature's digest, and the signature has no Ed25519 part
    /// (made before professional signing keys): it proves nothing against someone who
    /// could rewrite the database.
    case sealedOnly
    /// The stored content does not match the signature (its digest or its Ed25519
    /// signature): it changed after signing, or the encoding version is unknown.
    case mismatch
}
