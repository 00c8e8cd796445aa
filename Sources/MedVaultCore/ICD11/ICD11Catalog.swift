/// The ICD-11 MMS catalogue an app diagnoses from: text search, lookup by code or by
/// URI, and the release in use.
///
/// Implementations: `WHOICDClient` (module `MedVaultICD11`: the WHO ICD-API or a local
/// ICD-API container) and ``ICD11CachedCatalog``, which keeps what a remote catalogue
/// returns in an ``ICD11CacheRepository`` and answers from it when the server cannot be
/// reached. A test double of your own conforms in a few lines.
///
/// For example:
///
/// ```swift
/// let result = try await catalog.search("depresión", language: "es", limit: 10)
/// let snapshot = try result.entities[0].snapshot(language: "es")
/// ```
public protocol ICD11Catalog: Sendable {
    /// The MMS release this catalogue answers from, for example `2024-01`.
    var release: String { get }

    /// Categories whose title matches `text`, best first.
    ///
    /// - Parameters:
    ///   - text: What the professional typed.
    ///   - language: The language of the titles wanted (`es`, `en`, …).
    ///   - limit: At most this many results (1…100).
    /// - Throws: `invalidArgument` for text without words, a language tag that is not
    ///   like `es`, or a limit out of range; from a catalogue that asks a server:
    ///   `offline`, `timeout`, `unauthorized`, `rateLimited` (with
    ///   ``MedVaultError/retryAfter``), `serverError`, `badResponse`.
    func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult

    /// The category with MMS code `code`, its title in `language`.
    ///
    /// - Throws: `notFound` when the release has no such code; `invalidArgument` for a
    ///   malformed code or language; the server errors of ``search(_:language:limit:)``.
    func entity(code: String, language: String) async throws -> ICD11Entity

    /// The category with WHO URI `uri` (foundation or MMS linearization), its title in
    /// `language`.
    ///
    /// - Throws: `notFound` when the release has no such entity; `invalidArgument` for a
    ///   URI that is not `http(s)://id.who.int/…`; the server errors of
    ///   ``search(_:language:limit:)``.
    func entity(uri: String, language: String) async throws -> ICD11Entity
}

/// The argument checks every catalogue applies, so that each answers bad input alike.
public enum ICD11CatalogArguments {
    /// The largest `limit` of a search.
    public static let maximumLimit = 100
    /// The longest search text accepted.
    public static let maximumTextLength = 200

    /// Checks a search's arguments.
    ///
    /// - Throws: `invalidArgument` naming `text`, `language` or `limit`.
    public static func checkSearch(_ text: String, language: String, limit: Int) throws {
        if text.count > maximumTextLength || SearchText.tokens(of: text).isEmpty {
            throw MedVaultError(.invalidArgument, field: "text", reason: "the search text must have a word and at most 200 characters")
        }
        try checkLanguage(language)
        if !(1...maximumLimit).contains(limit) {
            throw MedVaultError(.invalidArgument, field: "limit", reason: "the limit must be between 1 and 100")
        }
    }

    /// Checks a language tag (``ICD11Entity/isValidLanguage(_:)``).
    public static func checkLanguage(_ language: String) throws {
        if !ICD11Entity.isValidLanguage(language) {
            throw MedVaultError(.invalidArgument, field: "language", reason: "the language must be a tag such as es or en")
        }
    }

    /// Checks a code to look up: a stem or extension code, not a postcoordinated cluster.
    public static func checkCode(_ code: String) throws {
        if !ICD11Snapshot.isValidCode(code) || code.contains("&") || code.contains("/") {
            throw MedVaultError(.invalidArgument, field: "code", reason: "the code must be an ICD-11 MMS code such as 6A70")
        }
    }

    /// Checks a URI to look up (``ICD11Snapshot/isValidURI(_:)``).
    public static func checkURI(_ uri: String) throws {
        if !ICD11Snapshot.isValidURI(uri) {
            throw MedVaultError(.invalidArgument, field: "uri", reason: "the URI must be a WHO ICD URI (http://id.who.int/…)")
        }
    }
}
