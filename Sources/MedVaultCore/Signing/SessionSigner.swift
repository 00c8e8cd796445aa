import Foundation

/// Signs a signature's attestation (``SessionSignature/attestation``: the content's digest,
/// who, when) with a professional's Ed25519 key: the SQLCipher store's signer derives the
/// key from the vault key; the in-memory store's holds a random one.
package protocol SessionSigner: Sendable {
    /// The 32-byte public key and the 64-byte signature of `content` (an attestation) by
    /// the professional.
    ///
    /// - Throws: `locked` when the key is gone (the vault locked meanwhile).
    func sign(_ content: Data, professionalID: UUID) throws -> (publicKey: Data, signature: Data)

    /// The 32-byte public key the professional signs with, for pinning signatures.
    ///
    /// - Throws: `locked` when the key is gone.
    func publicKey(professionalID: UUID) throws -> Data
}
