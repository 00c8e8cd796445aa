import Foundation

/// The signature of a session's clinical content by the vault's professional: who
/// signed, when, and the SHA-256 of the content's canonical encoding
/// (``SessionSigningContent``).
///
/// A signature is a seal, not a public-key signature: it proves the content has not
/// changed since signing (recompute the hash with ``SessionSigningContent``, or call
/// `verifySignature(of:)` on the repository), and the stores refuse every change to
/// signed content. Signatures are never edited or deleted.
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

    /// Creates a signature value (the repositories create signatures; this is for
    /// decoding and tests).
    public init(sessionID: UUID, professionalID: UUID, professionalName: String, licenseNumber: String,
                signedAt: Date, contentSHA256: SHA256Digest,
                encodingVersion: Int = SessionSigningContent.encodingVersion) {
        self.sessionID = sessionID
        self.professionalID = professionalID
        self.professionalName = professionalName
        self.licenseNumber = licenseNumber
        self.signedAt = signedAt
        self.contentSHA256 = contentSHA256
        self.encodingVersion = encodingVersion
    }
}
