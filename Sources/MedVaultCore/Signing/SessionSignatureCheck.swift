/// What a signature check found: see `verifySignature(of:)`.
public enum SessionSignatureCheck: Sendable, Hashable {
    /// The session has no signature.
    case unsigned
    /// The stored content hashes to the signature's digest.
    case verified
    /// The stored content does not hash to the signature's digest: it changed after
    /// signing (outside MedVault), or the encoding version is unknown.
    case mismatch
}
