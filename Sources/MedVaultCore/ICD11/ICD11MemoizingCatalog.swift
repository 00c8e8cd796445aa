import Foundation

/// An in-memory first-level cache in front of another catalogue (usually an
/// ``ICD11CachedCatalog`` over the WHO client): a search repeated while the professional
/// types — the same words, in any case or spacing — is answered from memory instead of a
/// request to the WHO, whose API limits how often it may be asked.
///
/// - A search result is kept for ``lifetime`` (10 minutes by default) under its words
///   (``SearchText/tokens(of:)``: accent-, case- and spacing-insensitive), language and
///   limit; a lookup by code or URI under the code or URI and language. At most
///   ``capacity`` answers are kept (256 by default); past it the oldest goes.
/// - A search answered from the offline cache (``ICD11SearchResult/Source/cache``) and
///   errors are not kept, so the next keystroke asks the server again. A lookup carries no
///   source: one answered from the offline cache is kept like any other (the entity is the
///   same either way).
/// - It holds public catalogue titles and the words searched, never a record of the
///   vault; ``removeAll()`` forgets them (an app may call it when the vault locks).
///
/// For example:
///
/// ```swift
/// let catalog = ICD11MemoizingCatalog(base: ICD11CachedCatalog(remote: who, cache: vault.icd11Cache))
/// for prefix in ["dep", "depr", "depr"] { _ = try await catalog.search(prefix, language: "es", limit: 10) }
/// // two requests: "depr" the second time came from memory
/// ```
public actor ICD11MemoizingCatalog: ICD11Catalog {
    /// The catalogue asked on a miss.
    public nonisolated let base: any ICD11Catalog
    /// How long an answer is kept.
    public nonisolated let lifetime: Duration
    /// The most answers kept.
    public nonisolated let capacity: Int

    private enum Key: Hashable {
        case search(words: [String], language: String, limit: Int)
        case code(String, language: String)
        case uri(String, language: String)
    }

    private enum Answer: Sendable {
        case search(ICD11SearchResult)
        case entity(ICD11Entity)
    }

    private var answers: [Key: (answer: Answer, expires: ContinuousClock.Instant)] = [:]
    private var order: [Key] = []
    /// Raised by ``removeAll()``: an answer whose request began before is not kept.
    private var generation = 0
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Creates a cache in front of `base`.
    ///
    /// - Parameters:
    ///   - base: The catalogue asked on a miss.
    ///   - lifetime: How long an answer is kept (at least 1 second).
    ///   - capacity: The most answers kept (at least 1).
    ///   - now: The clock (tests step it).
    public init(base: any ICD11Catalog, lifetime: Duration = .seconds(600), capacity: Int = 256,
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.base = base
        self.lifetime = max(lifetime, .seconds(1))
        self.capacity = max(capacity, 1)
        self.now = now
    }

    public nonisolated var release: String { base.release }

    public func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult {
        try ICD11CatalogArguments.checkSearch(text, language: language, limit: limit)
        let key = Key.search(words: SearchText.tokens(of: text), language: language, limit: limit)
        let base = base
        guard case .search(let result) = try await answer(key, { .search(try await base.search(text, language: language, limit: limit)) })
        else { throw Self.mixedUp }
        return result
    }

    public func entity(code: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkCode(code)
        try ICD11CatalogArguments.checkLanguage(language)
        let base = base
        guard case .entity(let entity) = try await answer(.code(code.uppercased(), language: language), {
            .entity(try await base.entity(code: code, language: language))
        }) else { throw Self.mixedUp }
        return entity
    }

    public func entity(uri: String, language: String) async throws -> ICD11Entity {
        try ICD11CatalogArguments.checkURI(uri)
        try ICD11CatalogArguments.checkLanguage(language)
        let base = base
        guard case .entity(let entity) = try await answer(.uri(uri, language: language), {
            .entity(try await base.entity(uri: uri, language: language))
        }) else { throw Self.mixedUp }
        return entity
    }

    /// Forgets every answer kept; an answer to a request under way is returned to its
    /// caller but not kept.
    public func removeAll() {
        answers.removeAll()
        order.removeAll()
        generation += 1
    }

    /// The number of answers kept now, expired ones included until they are asked for.
    public var count: Int { answers.count }

    // MARK: - Keeping answers

    private func answer(_ key: Key, _ fetch: @escaping @Sendable () async throws -> Answer) async throws -> Answer {
        if let kept = answers[key] {
            if kept.expires > now() { return kept.answer }
            answers[key] = nil
            order.removeAll { $0 == key }
        }
        let started = generation
        let answer = try await fetch()
        if generation == started { keep(answer, under: key) }
        return answer
    }

    private func keep(_ answer: Answer, under key: Key) {
        if case .search(let result) = answer, result.source != .server { return }
        if answers[key] == nil { order.append(key) }
        answers[key] = (answer, now() + lifetime)
        while order.count > capacity {
            answers[order.removeFirst()] = nil
        }
    }

    /// Unreachable: every key kind is filled by its own kind of answer.
    private static let mixedUp = MedVaultError(.invalidArgument, reason: "an ICD-11 answer was kept under another kind of request")
}
