import Foundation

/// What the caller supplies to store an attachment; size and digest are measured by
/// the repository from the content itself.
///
/// For example:
///
/// ```swift
/// let new = NewAttachment(sessionID: session.id, fileName: "informe.pdf", mimeType: "application/pdf")
/// let stored = try await attachments.create(new, content: fileChunks)
/// ```
public struct NewAttachment: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// The session the file belongs to.
    public var sessionID: UUID
    /// The file's name: not blank, at most 255 characters, no `/`, `\` or control characters.
    public var fileName: String
    /// The MIME type: `type/subtype` (see ``isValidMIMEType(_:)``).
    public var mimeType: String

    /// Creates the description of an attachment to store.
    public init(id: UUID = UUID(), sessionID: UUID, fileName: String, mimeType: String) {
        self.id = id
        self.sessionID = sessionID
        self.fileName = fileName
        self.mimeType = mimeType
    }

    /// Every validation failure, in field order (`fileName`, `mimeType`); empty when valid.
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkRequired(fileName, field: "fileName", maximum: 255, into: &errors)
        if errors.isEmpty, fileName.unicodeScalars.contains(where: {
            $0 == "/" || $0 == "\\" || CharacterSet.controlCharacters.contains($0)
        }) {
            errors.append(.validation("fileName", "must not contain path separators or control characters"))
        }
        if !Self.isValidMIMEType(mimeType) {
            errors.append(.validation("mimeType", "is not a MIME type such as application/pdf"))
        }
        return errors
    }

    /// Throws the first of ``validationErrors()``.
    public func validate() throws {
        try ClinicalValidation.throwFirst(validationErrors())
    }

    /// Whether `text` is `type/subtype` with both names RFC 6838 restricted names: a
    /// letter or digit, then up to 126 letters, digits or `! # $ & - ^ _ . +`. Parameters
    /// (`; charset=…`) are not accepted.
    ///
    /// ```swift
    /// NewAttachment.isValidMIMEType("application/pdf")                 // true
    /// NewAttachment.isValidMIMEType("application/vnd.ms-excel")        // true
    /// NewAttachment.isValidMIMEType("pdf")                             // false
    /// ```
    public static func isValidMIMEType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy(isRestrictedName)
    }

    private static func isRestrictedName(_ name: Substring) -> Bool {
        guard let first = name.first, (1...127).contains(name.count),
              first.isASCII, first.isLetter || first.isNumber
        else { return false }
        let extra = Set("!#$&-^_.+")
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || extra.contains($0)) }
    }
}
