/// The offline ICD-11 cache: every category fetched from the catalogue or chosen for a
/// diagnosis, kept with its release and the languages seen, so that a session without
/// network still finds the codes used before.
///
/// ``ICD11CachedCatalog`` fills it and reads it; apps rarely call it directly. The
/// `Vault`'s cache is a table in the encrypted database; ``InMemoryVault``'s is in memory.
///
/// For example:
///
/// ```swift
/// try await vault.icd11Cache.save(entity)
/// let hits = try await vault.icd11Cache.search("depresion", release: "2024-01", limit: 10)
/// ```
public protocol ICD11CacheRepository: Sendable {
    /// Stores `entity`, merged with what the cache holds for its code and release
    /// (``ICD11Entity/merging(_:)``: titles are added language by language).
    ///
    /// - Returns: The entity as now stored.
    /// - Throws: `validation` (``ICD11Entity/validationErrors()``); nothing is written on error.
    @discardableResult
    func save(_ entity: ICD11Entity) async throws -> ICD11Entity

    /// Stores many entities in one transaction: all or nothing.
    ///
    /// - Returns: The entities as now stored, in the order given.
    /// - Throws: As ``save(_:)-(ICD11Entity)`` for the first invalid entity.
    @discardableResult
    func save(_ entities: [ICD11Entity]) async throws -> [ICD11Entity]

    /// The entity with MMS code `code` in `release`, or `nil` when it was never cached.
    func find(code: String, release: String) async throws -> ICD11Entity?

    /// The entity whose URI or linearization URI is `uri` in `release`, or `nil`.
    func find(uri: String, release: String) async throws -> ICD11Entity?

    /// The cached entities of `release` that match `text`, best first: accent- and
    /// case-insensitive, every word of `text` a prefix of a word of a title (in any
    /// language) or of the code (``ICD11CacheSearch``).
    ///
    /// - Throws: `invalidArgument` for text without words or a limit outside 1…100.
    func search(_ text: String, release: String, limit: Int) async throws -> [ICD11Entity]

    /// The number of entities cached, across releases.
    func count() async throws -> Int
}

/// The search rule of the offline cache, written once for every backend: which cached
/// entities match a text, and in what order.
public enum ICD11CacheSearch {
    /// The folded words an entity is found by: its titles' in every language and its code's.
    public static func tokens(of entity: ICD11Entity) -> [String] {
        SearchText.tokens(of: entity.code) + entity.titles.keys.sorted().flatMap { SearchText.tokens(of: entity.titles[$0] ?? "") }
    }

    /// `candidates` that match `text`, best first, at most `limit`: an entity whose code
    /// is the text first, then by code.
    ///
    /// - Throws: `invalidArgument` for text without words or a limit outside 1…100.
    public static func results(_ text: String, in candidates: [ICD11Entity], limit: Int) throws -> [ICD11Entity] {
        let query = SearchText.tokens(of: text)
        if query.isEmpty || text.count > ICD11CatalogArguments.maximumTextLength {
            throw MedVaultError(.invalidArgument, field: "text", reason: "the search text must have a word and at most 200 characters")
        }
        if !(1...ICD11CatalogArguments.maximumLimit).contains(limit) {
            throw MedVaultError(.invalidArgument, field: "limit", reason: "the limit must be between 1 and 100")
        }
        let folded = query.joined(separator: " ")
        let matches = candidates.filter { SearchText.matches(queryTokens: query, recordTokens: tokens(of: $0)) }
        let ranked = matches.sorted { a, b in
            let aExact = SearchText.tokens(of: a.code).joined(separator: " ") == folded
            let bExact = SearchText.tokens(of: b.code).joined(separator: " ") == folded
            if aExact != bExact { return aExact }
            return a.code < b.code
        }
        return Array(ranked.prefix(limit))
    }
}
