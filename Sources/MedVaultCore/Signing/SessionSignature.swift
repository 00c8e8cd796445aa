import Foundation

/// The signature of a session's clinical content by the vault's professional: who
/// signed, when, the SHA-256 of the content's canonical encoding
/// (``SessionSigningContent``), and an Ed25519 signature of that encoding under the
/// professional's signing key with its public key.
///
/// The signing key is derived from the vault key for the professional (a vault's signatures
/// need no key store of their own): only an unlocked vault can sign, and whoever holds the
/// database without the vault key cannot rewrite a signed note and sign it again under
/// that key. A third party verifies a signature with the public key alone (it travels in
/// the FHIR export's `Provenance.signature`). Signatures written before professional
/// signing keys carry the digest only (``SessionSignatureCheck/sealedOnly``). The stores
/// refuse every change to signed content; signatures are never edited or deleted.
///
/// For example:
///
/// ```swift
/// let signature = try await vault.sessions.sign(session.id, version: session.version)
/// print(signature.signedAt, signature.contentSHA256)
/// ```
public struct SessionSignature: Sendable, Hashable, Codable {
    /// The signed session.
    public var sessionID: UUID
    /// The professional who signed (the vault's `Professional`).
    public var professionalID: UUID
    /// The professional's full name when signing (kept even if the profile changes).
    public var professionalName: String
    /// The professional's license number when signing.
    public var licenseNumber: String
    /// When the session was signed (stored to the millisecond).
    public var signedAt: Date
    /// SHA-256 of ``SessionSigningContent/encoded()`` at signing time.
    public var contentSHA256: SHA256Digest
    /// The version of the canonical encoding hashed (``SessionSigningContent/encodingVersion``).
    public var encodingVersion: Int
    /// The 32-byte Ed25519 public key of the professional's signing key; `nil` for a
    /// signature made before professional signing keys.
    public var signerPublicKey: Data?
    /// The 64-byte Ed25519 signature of ``attestation``; `nil` with ``signerPublicKey``.
    public var signatureBytes: Data?

    /// Creates a signature value (the repositories create signatures; this is for
    /// decoding and tests).
    public init(sessionID: UUID, professionalID: UUID, professionalName: String, licenseNumber: String,
                signedAt: Date, contentSHA256: SHA256Digest,
                encodingVersion: Int = SessionSigningContent.encodingVersion,
                signerPublicKey: Data? = nil, signatureBytes: Data? = nil) {
        self.sessionID = sessionID
        self.professionalID = professionalID
        self.professionalName = professionalName
        self.licenseNumber = licenseNumber
        self.signedAt = signedAt
        self.contentSHA256 = contentSHA256
        self.encodingVersion = encodingVersion
        self.signerPublicKey = signerPublicKey
        self.signatureBytes = signatureBytes
    }
}

extension SessionSignature {
    /// The domain string that opens ``attestation``.
    public static let attestationDomain = "medvault.session-attestation.v1"

    /// The bytes the Ed25519 signature signs: what was signed (the content's digest, for
    /// which session) and who signed it, when — so neither the signer's name and license
    /// nor the time can change under a valid signature. In the text encoding of
    /// ``SessionSigningContent`` (`0x01`, UInt32 big-endian byte count, UTF-8):
    ///
    /// ```
    /// text("medvault.session-attestation.v1")
    /// text(session id)              uppercase UUID text
    /// text(content SHA-256)         64 lowercase hex digits
    /// text(encoding version)        decimal
    /// text(professional id)         uppercase UUID text
    /// text(professional name)
    /// text(license number)
    /// text(signed at)               milliseconds since 1970, decimal
    /// ```
    public var attestation: Data {
        var data = Data()
        for text in [Self.attestationDomain, sessionID.uuidString, contentSHA256.hex, String(encodingVersion),
                     professionalID.uuidString, professionalName, licenseNumber,
                     String(Int64((signedAt.timeIntervalSince1970 * 1000).rounded()))] {
            SessionSigningContent.append(text, to: &data)
        }
        return data
    }
}
