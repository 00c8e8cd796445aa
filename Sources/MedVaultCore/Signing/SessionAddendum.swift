import Foundation

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
