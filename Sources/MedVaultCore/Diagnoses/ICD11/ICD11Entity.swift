import Foundation

/// One ICD-11 MMS category as the catalogue returns it: its code, its titles in the
/// languages fetched so far, its URIs and the release it comes from.
///
/// Converts without loss into the ``ICD11Snapshot`` a diagnosis freezes:
///
/// ```swift
/// let entity = try await catalog.entity(code: "6A70", language: "es")
/// let snapshot = try entity.snapshot(language: "es")   // title in Spanish, titleEs kept
/// ```
public struct ICD11Entity: Sendable, Hashable, Codable {
    /// The MMS code, for example `6A70`.
    public var code: String
    /// Titles by language tag (`en`, `es`, …): the languages fetched so far.
    public var titles: [String: String]
    /// The foundation entity's URI (`http://id.who.int/icd/entity/…`), the stable identity
    /// a snapshot keeps.
    public var uri: String
    /// The MMS linearization URI of this release (`http://id.who.int/icd/release/11/2024-01/mms/…`),
    /// when known.
    public var linearizationURI: String?
    /// The release the entity comes from, for example `2024-01`.
    public var releaseVersion: String

    /// Creates an entity.
    public init(code: String, titles: [String: String], uri: String, linearizationURI: String? = nil,
                releaseVersion: String) {
        self.code = code
        self.titles = titles
        self.uri = uri
        self.linearizationURI = linearizationURI
        self.releaseVersion = releaseVersion
    }

    /// The title in `language`, else English, else any title known.
    public func title(in language: String) -> String? {
        titles[language] ?? titles["en"] ?? titles.keys.sorted().first.flatMap { titles[$0] }
    }

    /// The snapshot a diagnosis freezes: the title in `language` (the professional's),
    /// the Spanish title when known, the entity URI and the release.
    ///
    /// - Throws: `validation` when the entity is not a valid MMS category (no title, a
    ///   malformed code, URI or release).
    public func snapshot(language: String) throws -> ICD11Snapshot {
        let snapshot = ICD11Snapshot(code: code, title: title(in: language) ?? "", titleEs: titles["es"],
                                     uri: uri, releaseVersion: releaseVersion)
        try snapshot.validate()
        return snapshot
    }
}
