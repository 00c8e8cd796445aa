import Foundation

/// One ICD-11 MMS category as a catalogue returns it: its code, its titles in the
/// languages fetched so far, its URIs and the release it comes from.
///
/// Converts into the ``ICD11Snapshot`` a diagnosis freezes, and back, without loss:
///
/// ```swift
/// let entity = try await catalog.entity(code: "6A70", language: "es")
/// let snapshot = try entity.snapshot(language: "es")   // title in Spanish, titleEs kept
/// ICD11Entity(snapshot: snapshot, language: "es").snapshot(language: "es") == snapshot  // true
/// ```
public struct ICD11Entity: Sendable, Hashable, Codable {
    /// The MMS code, for example `6A70`.
    public var code: String
    /// Titles by language tag (`en`, `es`, …): the languages fetched so far. Plain text:
    /// the search highlights (`<em class='found'>`) are removed before a title gets here.
    public var titles: [String: String]
    /// The WHO URI a snapshot keeps: the foundation entity's (`http://id.who.int/icd/entity/…`),
    /// or the linearization's for a residual category that has no foundation entity.
    public var uri: String
    /// The MMS linearization URI in its release
    /// (`http://id.who.int/icd/release/11/2024-01/mms/…`), when known.
    public var linearizationURI: String?
    /// The release the entity comes from, for example `2024-01`.
    public var releaseVersion: String

    /// Creates an entity. See ``validationErrors()`` for the rules.
    public init(code: String, titles: [String: String], uri: String, linearizationURI: String? = nil,
                releaseVersion: String) {
        self.code = code
        self.titles = titles
        self.uri = uri
        self.linearizationURI = linearizationURI
        self.releaseVersion = releaseVersion
    }

    /// The entity a snapshot was frozen from: its title under `language`, its Spanish
    /// title under `es`. ``snapshot(language:)`` with the same language gives `snapshot` back.
    public init(snapshot: ICD11Snapshot, language: String) {
        var titles = [language: snapshot.title]
        if let titleEs = snapshot.titleEs { titles["es"] = titleEs }
        self.init(code: snapshot.code, titles: titles, uri: snapshot.uri, releaseVersion: snapshot.releaseVersion)
    }

    /// The title in `language`, else English, else the title of the first language in
    /// alphabetical order; `nil` when there is none.
    public func title(in language: String) -> String? {
        titles[language] ?? titles["en"] ?? titles.keys.sorted().first.flatMap { titles[$0] }
    }

    /// The snapshot a diagnosis freezes: the title in `language` (the professional's,
    /// see ``title(in:)``), the Spanish title when known, the URI and the release.
    ///
    /// - Throws: `validation` (fields `snapshot.…`) when the entity does not make a valid
    ///   snapshot.
    public func snapshot(language: String) throws -> ICD11Snapshot {
        let snapshot = ICD11Snapshot(code: code, title: title(in: language) ?? "", titleEs: titles["es"],
                                     uri: uri, releaseVersion: releaseVersion)
        try snapshot.validate()
        return snapshot
    }

    /// This entity with `newer`'s URIs and its titles added to (or replacing) this
    /// entity's, language by language: what the offline cache keeps when it fetches a
    /// category again, maybe in another language.
    public func merging(_ newer: ICD11Entity) -> ICD11Entity {
        var merged = newer
        merged.titles = titles.merging(newer.titles) { _, new in new }
        merged.linearizationURI = newer.linearizationURI ?? linearizationURI
        return merged
    }

    // MARK: - Validation

    /// The longest title accepted (as ``ICD11Snapshot``'s).
    public static let maximumTitleLength = 1_000
    /// The most languages an entity keeps.
    public static let maximumLanguageCount = 32

    /// Every validation failure (empty when valid). Field names are prefixed with `entity.`:
    ///
    /// - `entity.code`: ``ICD11Snapshot/isValidCode(_:)``.
    /// - `entity.titles`: one to 32 languages, each tag ``isValidLanguage(_:)``, each title
    ///   non-blank, at most 1,000 characters, no control or bidi formatting character.
    /// - `entity.uri`, `entity.linearizationURI`: ``ICD11Snapshot/isValidURI(_:)``.
    /// - `entity.releaseVersion`: ``ICD11Snapshot/isValidRelease(_:)``.
    public func validationErrors() -> [MedVaultError] {
        var errors: [MedVaultError] = []
        if !ICD11Snapshot.isValidCode(code) { errors.append(.validation("entity.code", "is not an ICD-11 MMS code")) }
        if titles.isEmpty || titles.count > Self.maximumLanguageCount {
            errors.append(.validation("entity.titles", "must hold one to 32 languages"))
        } else if !titles.keys.allSatisfy(Self.isValidLanguage) {
            errors.append(.validation("entity.titles", "has a language tag that is not like es or en-GB"))
        } else {
            for language in titles.keys.sorted() {
                ClinicalValidation.checkRequired(titles[language] ?? "", field: "entity.titles",
                                                 maximum: Self.maximumTitleLength, into: &errors)
            }
        }
        if !ICD11Snapshot.isValidURI(uri) { errors.append(.validation("entity.uri", "is not a WHO ICD URI")) }
        if let linearizationURI, !ICD11Snapshot.isValidURI(linearizationURI) {
            errors.append(.validation("entity.linearizationURI", "is not a WHO ICD URI"))
        }
        if !ICD11Snapshot.isValidRelease(releaseVersion) {
            errors.append(.validation("entity.releaseVersion", "is not a release such as 2024-01"))
        }
        return errors
    }

    /// This entity if valid.
    ///
    /// - Throws: The first of ``validationErrors()``.
    public func validated() throws -> ICD11Entity {
        try ClinicalValidation.throwFirst(validationErrors())
        return self
    }

    /// Whether `tag` is a language tag the catalogue accepts: two or three lower-case
    /// ASCII letters, optionally followed by `-` and one to eight ASCII letters or digits
    /// (`es`, `en`, `zh-Hans`…).
    public static func isValidLanguage(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...3).contains(primary.count),
              primary.allSatisfy({ $0.isASCII && $0.isLowercase })
        else { return false }
        guard parts.count == 2 else { return true }
        return (1...8).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
