import Foundation

/// The ICD-11 MMS catalogue an app diagnoses from: text search, lookup by code or by
/// URI, and the release in use.
///
/// Implementations: the WHO ICD-API client (`WHOICDClient` in the `MedVault` module),
/// the offline cache kept in the vault, and a caching catalogue that uses the first
/// and falls back to the second when offline.
///
/// For example:
///
/// ```swift
/// let results = try await catalog.search("depresión", language: "es", limit: 10)
/// let snapshot = try results.entities[0].snapshot(language: "es")
/// ```
public protocol ICD11Catalog: Sendable {
    /// The MMS release this catalogue answers from, for example `2024-01`.
    var release: String { get }

    /// Categories whose title matches `text`, best first.
    ///
    /// - Parameters:
    ///   - text: What the professional typed (any language the catalogue supports).
    ///   - language: The language of the titles wanted (`es`, `en`, …).
    ///   - limit: At most this many results (1…100).
    /// - Throws: `invalidArgument` for empty text or a limit out of range; `offline`,
    ///   `unauthorized`, `rateLimited` (with ``MedVaultError/retryAfter``), `serverError`,
    ///   `badResponse` from a catalogue that asks a server.
    func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult

    /// The category with MMS code `code`.
    ///
    /// - Throws: `notFound` when the release has no such code.
    func entity(code: String, language: String) async throws -> ICD11Entity

    /// The category with foundation or linearization URI `uri`.
    ///
    /// - Throws: `notFound` when the release has no such entity.
    func entity(uri: String, language: String) async throws -> ICD11Entity
}

/// What a search returned, and where from.
public struct ICD11SearchResult: Sendable, Hashable {
    /// Where the results came from.
    public enum Source: String, Sendable, Hashable {
        /// The WHO ICD-API (or a local ICD-API container).
        case server
        /// The vault's offline cache: only categories fetched or chosen before.
        case cache
    }

    /// The categories found, best first.
    public var entities: [ICD11Entity]
    /// Where they came from; ``Source/cache`` means the server could not be reached.
    public var source: Source

    /// Creates a result.
    public init(entities: [ICD11Entity], source: Source) {
        self.entities = entities
        self.source = source
    }
}
