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

/// A correction or addition to a signed session: append-only, never edited or
/// deleted, listed in the order written.
///
/// For example:
///
/// ```swift
/// let addendum = try await vault.sessions.addAddendum(
///     to: session.id, reason: "Late entry", text: "Patient called back; dose confirmed.")
/// ```
public struct SessionAddendum: Sendable, Hashable, Codable, Identifiable {
    /// Identifier.
    public var id: UUID
    /// The session it amends.
    public var sessionID: UUID
    /// The professional who wrote it.
    public var authorID: UUID
    /// The author's full name when writing it.
    public var authorName: String
    /// When it was written (stored to the millisecond).
    public var createdAt: Date
    /// Why it was added ("late entry", "correction of dose"): a single line, at most 1,000 characters.
    public var reason: String
    /// The addendum itself: at most 200,000 characters, newlines allowed.
    public var text: String

    /// The longest ``reason``.
    public static let maximumReasonLength = 1_000

    /// Creates an addendum value (the repositories create addenda; this is for decoding
    /// and tests).
    public init(id: UUID = UUID(), sessionID: UUID, authorID: UUID, authorName: String, createdAt: Date,
                reason: String, text: String) {
        self.id = id
        self.sessionID = sessionID
        self.authorID = authorID
        self.authorName = authorName
        self.createdAt = createdAt
        self.reason = reason
        self.text = text
    }

    /// Every validation failure of this value (empty when valid): `reason` and `text`
    /// must not be blank nor too long, nor hold refused control characters; field names,
    /// never values.
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkRequired(reason, field: "reason", maximum: Self.maximumReasonLength, into: &errors)
        ClinicalValidation.checkRequired(text, field: "text", maximum: ClinicalValidation.maximumLongTextLength,
                                         multiline: true, into: &errors)
        ClinicalValidation.checkRequired(authorName, field: "authorName",
                                         maximum: ClinicalValidation.maximumNameLength, into: &errors)
        return errors
    }
}

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
