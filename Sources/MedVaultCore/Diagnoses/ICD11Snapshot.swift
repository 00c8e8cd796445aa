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

    /// Characters of ICD-11 codes: digits and upper-case letters except I and O.
    private static func isCodeCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isNumber || (c.isUppercase && c != "I" && c != "O"))
    }

    private static func isCodeLetter(_ c: Character) -> Bool {
        c.isASCII && c.isUppercase && c != "I" && c != "O"
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
        guard !code.isEmpty, code.count <= 100 else { return false }
        let parts = code.split(omittingEmptySubsequences: false) { $0 == "&" || $0 == "/" }
        return parts.allSatisfy { isStemCode(Array($0)) || isExtensionCode(Array($0)) }
    }

    private static func isStemCode(_ c: [Character]) -> Bool {
        guard c.count == 4 || ((6...7).contains(c.count) && c[4] == ".") else { return false }
        guard c[0] != "X", isCodeCharacter(c[0]), isCodeLetter(c[1]),
              c[2].isASCII, c[2].isNumber, isCodeCharacter(c[3])
        else { return false }
        return c.dropFirst(5).allSatisfy(isCodeCharacter)
    }

    private static func isExtensionCode(_ c: [Character]) -> Bool {
        (4...6).contains(c.count) && c[0] == "X" && isCodeLetter(c[1])
            && c.dropFirst(2).allSatisfy(isCodeCharacter)
    }

    /// Whether `uri` is an `http(s)://id.who.int/…` URI with a non-empty path.
    public static func isValidURI(_ uri: String) -> Bool {
        guard uri.count <= 2_048 else { return false }
        let path: Substring
        if uri.hasPrefix("https://id.who.int/") {
            path = uri.dropFirst("https://id.who.int/".count)
        } else if uri.hasPrefix("http://id.who.int/") {
            path = uri.dropFirst("http://id.who.int/".count)
        } else {
            return false
        }
        return !path.isEmpty && path.allSatisfy { $0.isASCII && !$0.isWhitespace && $0 != "\u{7F}" && $0.asciiValue.map { $0 >= 0x21 } == true }
    }

    /// Whether `release` is `YYYY-MM` with a month 01 to 12.
    public static func isValidRelease(_ release: String) -> Bool {
        let c = Array(release)
        guard c.count == 7, c[4] == "-",
              c.enumerated().allSatisfy({ $0.offset == 4 || ($0.element.isASCII && $0.element.isNumber) }),
              let month = Int(String(c[5...6]))
        else { return false }
        return (1...12).contains(month)
    }
}
