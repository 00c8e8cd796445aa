/// A catalogue that asks a remote one (the WHO ICD-API) and keeps everything it returns
/// in an offline cache, then answers from that cache when the server cannot be reached.
///
/// - Every entity a search or a lookup returns is saved (merged by code and release),
///   with the titles of every language seen.
/// - When the remote catalogue fails with `offline`, `timeout`, `serverError` or
///   `rateLimited`, the cache answers instead: a search says so with
///   ``ICD11SearchResult/Source/cache``, a lookup returns the cached entity. When the
///   cache has nothing either, the remote error is thrown (`offline` with no network).
/// - Other errors (`unauthorized`, `notFound`, `badResponse`, `invalidArgument`) are
///   thrown as they are: the cache never hides a wrong credential or a code that does
///   not exist.
///
/// For example:
///
/// ```swift
/// let catalog = ICD11CachedCatalog(remote: whoClient, cache: vault.icd11Cache)
/// let result = try await catalog.search("depresión", language: "es", limit: 10)
/// if result.source == .cache { showOfflineBanner() }
/// ```
public struct ICD11CachedCatalog: ICD11Catalog {
    /// The catalogue asked first.
    public let remote: any ICD11Catalog
    /// Where fetched entities are kept, and what answers when `remote` cannot.
    public let cache: any ICD11CacheRepository

    /// Creates a catalogue over `remote` that caches in `cache`.
    public init(remote: any ICD11Catalog, cache: any ICD11CacheRepository) {
        self.remote = remote
        self.cache = cache
    }

    public var release: String { remote.release }

    /// Whether `error` means "the server could not answer now", so the cache may.
    public static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? MedVaultError else { return false }
        return [.offline, .timeout, .serverError, .rateLimited].contains(error.code)
    }

    public func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult {
        try ICD11CatalogArguments.checkSearch(text, language: language, limit: limit)
        do {
            let result = try await remote.search(text, language: language, limit: limit)
            try await cache.save(result.entities)
            return result
        } catch where Self.isUnavailable(error) {
            let cached = try await cache.search(text, release: release, limit: limit)
            guard !cached.isEmpty else { throw error }
            return ICD11SearchResult(entities: cached, source: .cache)
        }
    }

    public func entity(code: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkCode(code)
        try ICD11CatalogArguments.checkLanguage(language)
        do {
            return try await cache.save(try await remote.entity(code: code, language: language))
        } catch where Self.isUnavailable(error) {
            guard let cached = try await cache.find(code: code, release: release) else { throw error }
            return cached
        }
    }

    public func entity(uri: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkURI(uri)
        try ICD11CatalogArguments.checkLanguage(language)
        do {
            return try await cache.save(try await remote.entity(uri: uri, language: language))
        } catch where Self.isUnavailable(error) {
            guard let cached = try await cache.find(uri: uri, release: release) else { throw error }
            return cached
        }
    }
}
