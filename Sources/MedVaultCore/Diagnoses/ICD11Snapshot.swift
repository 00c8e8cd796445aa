/// The ICD-11 MMS data of a diagnosis, frozen when the diagnosis is made, so a 2025
/// diagnosis stays readable in 2035 without the WHO API. Immutable once saved.
///
/// For example:
///
/// ```swift
/// let snapshot = ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
///                              titleEs: "Trastorno depresivo de episodio único",
///                              uri: "http://id.who.int/icd/entity/1563440232",
///                              releaseVersion: "2024-01")
/// try snapshot.validate()
/// ```
public struct ICD11Snapshot: Sendable, Hashable, Codable {
    /// The MMS code, such as `6A70`, `6A70.1`, `BA00.Z`, or a postcoordinated cluster
    /// such as `6A70&XS5W`.
    public let code: String
    /// The title in the professional's language at diagnosis time.
    public let title: String
    /// The Spanish title, when the API returned one.
    public let titleEs: String?
    /// The WHO canonical URI, `http(s)://id.who.int/…`.
    public let uri: String
    /// The ICD-11 release used, `YYYY-MM` such as `2024-01`.
    public let releaseVersion: String

    /// Creates a snapshot. See ``validationErrors()`` for the rules.
    public init(code: String, title: String, titleEs: String? = nil, uri: String, releaseVersion: String) {
        self.code = code
        self.title = title
        self.titleEs = titleEs
        self.uri = uri
        self.releaseVersion = releaseVersion
    }

    /// Every validation failure, in field order (empty when valid). Field names are
    /// prefixed with `snapshot.`:
    ///
    /// - `snapshot.code`: ``isValidCode(_:)``.
    /// - `snapshot.title`: not blank, at most 1,000 characters.
    /// - `snapshot.titleEs`: at most 1,000 characters.
    /// - `snapshot.uri`: `http://id.who.int/` or `https://id.who.int/` then a path, no
    ///   white space, at most 2,048 characters.
    /// - `snapshot.releaseVersion`: `YYYY-MM` with a month 01 to 12.
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        if !Self.isValidCode(code) {
            errors.append(.validation("snapshot.code", "is not an ICD-11 MMS code"))
        }
        ClinicalValidation.checkRequired(title, field: "snapshot.title", maximum: 1_000, into: &errors)
        ClinicalValidation.checkOptional(titleEs, field: "snapshot.titleEs", maximum: 1_000, into: &errors)
        if !Self.isValidURI(uri) {
            errors.append(.validation("snapshot.uri", "is not a WHO ICD URI"))
        }
        if !Self.isValidRelease(releaseVersion) {
            errors.append(.validation("snapshot.releaseVersion", "is not a release such as 2024-01"))
        }
        return errors
    }

    /// Throws the first of ``validationErrors()``.
    public func validate() throws {
        try ClinicalValidation.throwFirst(validationErrors())
    }

    // MARK: - Syntax

    // The rules read UTF-8 bytes: every valid code and release is ASCII, and any other
    // byte (part of a non-ASCII character) makes the value invalid, as the rules on
    // characters did (ValidationFastPathTests compares both).

    private static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }

    /// Upper-case ASCII letters except I and O.
    private static func isCodeLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) && byte != UInt8(ascii: "I") && byte != UInt8(ascii: "O")
    }

    /// Characters of ICD-11 codes: digits and upper-case letters except I and O.
    private static func isCodeCharacter(_ byte: UInt8) -> Bool {
        isDigit(byte) || isCodeLetter(byte)
    }

    /// Whether `code` is an ICD-11 MMS code: a stem code, an extension code, or a
    /// postcoordinated cluster of them joined by `&` or `/`.
    ///
    /// - A stem code is a chapter character (digit or letter), a letter, a digit and a
    ///   digit or letter, optionally followed by `.` and one or two digits or letters:
    ///   `1A00`, `6A70`, `6A70.1`, `BA00.Z`, `2A00.00`.
    /// - An extension code is `X`, a letter and two to four digits or letters: `XS5W`.
    ///
    /// Letters are upper case, never I or O (the WHO avoids them). For example:
    ///
    /// ```swift
    /// ICD11Snapshot.isValidCode("6A70.1")    // true
    /// ICD11Snapshot.isValidCode("6A7")       // false
    /// ICD11Snapshot.isValidCode("6a70")      // false
    /// ```
    public static func isValidCode(_ code: String) -> Bool {
        let bytes = Array(code.utf8)
        guard !bytes.isEmpty, bytes.count <= 100 else { return false }
        let parts = bytes.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "/") }
        return parts.allSatisfy { isStemCode(Array($0)) || isExtensionCode(Array($0)) }
    }

    private static func isStemCode(_ c: [UInt8]) -> Bool {
        guard c.count == 4 || ((6...7).contains(c.count) && c[4] == UInt8(ascii: ".")) else { return false }
        guard c[0] != UInt8(ascii: "X"), isCodeCharacter(c[0]), isCodeLetter(c[1]), isDigit(c[2]), isCodeCharacter(c[3])
        else { return false }
        return c.dropFirst(5).allSatisfy(isCodeCharacter)
    }

    private static func isExtensionCode(_ c: [UInt8]) -> Bool {
        (4...6).contains(c.count) && c[0] == UInt8(ascii: "X") && isCodeLetter(c[1])
            && c.dropFirst(2).allSatisfy(isCodeCharacter)
    }

    /// Whether `uri` is an `http(s)://id.who.int/…` URI with a non-empty path.
    public static func isValidURI(_ uri: String) -> Bool {
        guard !ClinicalValidation.isLonger(uri, than: 2_048) else { return false }
        let path: Substring
        if uri.hasPrefix("https://id.who.int/") {
            path = uri.dropFirst("https://id.who.int/".count)
        } else if uri.hasPrefix("http://id.who.int/") {
            path = uri.dropFirst("http://id.who.int/".count)
        } else {
            return false
        }
        // Printable ASCII other than the space, byte by byte: the same as asking each
        // character for an ASCII value of at least 0x21, not 0x7F, and no white space.
        return !path.isEmpty && path.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Whether `release` is `YYYY-MM` with a month 01 to 12.
    public static func isValidRelease(_ release: String) -> Bool {
        let c = Array(release.utf8)
        guard c.count == 7, c[4] == UInt8(ascii: "-"),
              c.indices.allSatisfy({ $0 == 4 || isDigit(c[$0]) })
        else { return false }
        return (1...12).contains(Int(c[5] - 0x30) * 10 + Int(c[6] - 0x30))
    }
}
