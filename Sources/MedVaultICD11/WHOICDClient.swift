import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore

/// The WHO ICD-API v2 client: the ICD-11 MMS catalogue of one release, from the WHO's
/// servers or from a locally deployed ICD-API container.
///
/// - Authenticates with the OAuth2 client-credentials flow (scope `icdapi_access`) when
///   it has ``ICD11Credentials``; the token is cached and shared (`ICD11TokenCache`):
///   one token request however many concurrent calls, a refusal (HTTP 401) refreshes it
///   once and retries once.
/// - Sends `API-Version: v2` and `Accept-Language` on every call; searches
///   `…/mms/search`, looks codes up with `…/mms/codeinfo/{code}` then the entity.
/// - Fails with typed `MedVaultError`s: `offline`, `timeout`, `unauthorized`,
///   `rateLimited` (with `retryAfter`; calls fail at once until the wait is over),
///   `notFound`, `serverError`, `badResponse` (malformed or truncated JSON, hostile text).
///   No error, description or log holds the credentials, the token or a search text.
/// - Never follows a redirect (a token must not travel to another host) and keeps
///   nothing on disk (an ephemeral session without cache or cookies).
///
/// Wrap it in an `ICD11CachedCatalog` over `vault.icd11Cache` to keep what it returns
/// and to work offline for codes seen before.
///
/// For example:
///
/// ```swift
/// let client = try WHOICDClient(configuration: .who(credentials: credentials, release: "2024-01"))
/// let catalog = ICD11CachedCatalog(remote: client, cache: vault.icd11Cache)
/// let result = try await catalog.search("depresión", language: "es", limit: 10)
/// ```
public struct WHOICDClient: ICD11Catalog {
    /// The configuration in use.
    public let configuration: Configuration
    private let transport: WHOICDTransport

    /// Creates a client.
    ///
    /// - Throws: `invalidArgument` for an unusable configuration (see
    ///   ``Configuration``).
    public init(configuration: Configuration) throws {
        try configuration.validate()
        self.configuration = configuration
        self.transport = WHOICDTransport(configuration: configuration)
    }

    public var release: String { configuration.release }

    private var mmsPath: String { "icd/release/11/\(configuration.release)/mms" }

    public func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult {
        try ICD11CatalogArguments.checkSearch(text, language: language, limit: limit)
        let data = try await transport.get(mmsPath + "/search", query: [
            ("q", text), ("useFlexisearch", "false"), ("flatResults", "true"), ("highlightingEnabled", "true"),
        ], language: language)
        let answer = try WHOICDResponses.decode(WHOICDResponses.Search.self, from: data)
        let entities = try WHOICDResponses.entities(of: answer, language: language, release: release, limit: limit)
        return ICD11SearchResult(entities: entities, source: .server)
    }

    public func entity(code: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkCode(code)
        try ICD11CatalogArguments.checkLanguage(language)
        let data = try await transport.get(mmsPath + "/codeinfo/" + code, query: [("flexiblemode", "false")],
                                           language: language)
        let info = try WHOICDResponses.decode(WHOICDResponses.CodeInfo.self, from: data)
        guard let stem = WHOICDResponses.linearizationPath(info.stemId), stem.release == release else {
            throw ICD11Errors.badResponse("the code's stem is not an entity of this release")
        }
        let entity = try await linearizationEntity(stem.entity, language: language)
        guard entity.code == code else { throw ICD11Errors.badResponse("the entity found has another code") }
        return entity
    }

    public func entity(uri: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkURI(uri)
        try ICD11CatalogArguments.checkLanguage(language)
        if let id = WHOICDResponses.foundationID(uri) {
            return try await linearizationEntity(id, language: language)
        }
        guard let path = WHOICDResponses.linearizationPath(uri), path.release == release else {
            throw MedVaultError(.invalidArgument, field: "uri",
                                reason: "the URI must be a foundation entity or an MMS entity of this release")
        }
        return try await linearizationEntity(path.entity, language: language)
    }

    /// `GET {base}/icd/release/11/{release}/mms/{id}`: `id` is digits, optionally
    /// followed by `/other` or `/unspecified` (checked by `WHOICDResponses`).
    private func linearizationEntity(_ id: String, language: String) async throws -> ICD11Entity {
        let data = try await transport.get(mmsPath + "/" + id, query: [], language: language)
        let answer = try WHOICDResponses.decode(WHOICDResponses.Entity.self, from: data)
        return try WHOICDResponses.entity(of: answer, language: language, release: release)
    }
}
