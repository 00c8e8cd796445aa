import Foundation

/// The health professional who owns the vault (HU-01). A vault holds at most one.
///
/// For example:
///
/// ```swift
/// let me = Professional(fullName: "Ana Ruiz", licenseNumber: "M-12345", specialty: "Psicología")
/// let saved = try await professionals.save(me)   // version 1
/// ```
public struct Professional: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// The professional's full name, as it should appear on reports. Required.
    public var fullName: String
    /// The licence (registration) number. Required. Medium sensitivity.
    public var licenseNumber: String
    /// The specialty, such as "Psicología". Required.
    public var specialty: String
    /// Contact email, if any. Medium sensitivity.
    public var email: String?
    /// Preferred language as a BCP 47 tag, such as `es` or `en-GB`. Defaults to `es`.
    public var preferredLanguage: String
    /// When the record was first stored (set by the repository).
    public var createdAt: Date
    /// When the record was last stored (set by the repository).
    public var updatedAt: Date
    /// The stored version: 1 after creation, +1 on each save (set by the repository).
    public var version: Int64

    /// Creates an unsaved professional; the repository fills the timestamps and version.
    public init(
        id: UUID = UUID(), fullName: String, licenseNumber: String, specialty: String,
        email: String? = nil, preferredLanguage: String = "es"
    ) {
        self.id = id
        self.fullName = fullName
        self.licenseNumber = licenseNumber
        self.specialty = specialty
        self.email = email
        self.preferredLanguage = preferredLanguage
        self.createdAt = Date(millisecondsSince1970: 0)
        self.updatedAt = Date(millisecondsSince1970: 0)
        self.version = 0
    }

    /// Every validation failure of this value, in field order (empty when valid).
    ///
    /// Fields: `fullName`, `licenseNumber`, `specialty` (non-blank, at most 200
    /// characters), `email` (syntax), `preferredLanguage` (a BCP 47-like tag: letters,
    /// digits and `-`, 2 to 35 characters). No control, line-break or bidi formatting
    /// character in any of them (``TextSafety``).
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkRequired(fullName, field: "fullName",
                                         maximum: ClinicalValidation.maximumNameLength, into: &errors)
        ClinicalValidation.checkRequired(licenseNumber, field: "licenseNumber",
                                         maximum: ClinicalValidation.maximumShortTextLength, into: &errors)
        ClinicalValidation.checkRequired(specialty, field: "specialty",
                                         maximum: ClinicalValidation.maximumShortTextLength, into: &errors)
        ClinicalValidation.checkEmail(ClinicalValidation.normalized(email), field: "email", into: &errors)
        let languageOK = (2...35).contains(preferredLanguage.count)
            && preferredLanguage.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        if !languageOK {
            errors.append(.validation("preferredLanguage", "is not a language tag"))
        }
        return errors
    }

    /// This value as a repository stores it: blank optional fields become `nil`.
    ///
    /// - Throws: The first of ``validationErrors()``.
    public func validated() throws -> Professional {
        try ClinicalValidation.throwFirst(validationErrors())
        var copy = self
        copy.email = ClinicalValidation.normalized(email)
        return copy
    }
}
