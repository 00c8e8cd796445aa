/// The in-memory ``ICD11CacheRepository`` of ``InMemoryVault``: the same rules as the
/// vault's table, without a file.
public struct InMemoryICD11CacheRepository: ICD11CacheRepository {
    private let store = Store()

    /// Creates an empty cache.
    public init() {}

    /// The entities, keyed by release then code.
    private actor Store {
        var entities: [String: [String: ICD11Entity]] = [:]

        func save(_ inputs: [ICD11Entity]) throws -> [ICD11Entity] {
            let valid = try inputs.map { try $0.validated() }
            var table = entities
            let stored = valid.map { entity in
                let merged = table[entity.releaseVersion]?[entity.code].map { $0.merging(entity) } ?? entity
                table[entity.releaseVersion, default: [:]][entity.code] = merged
                return merged
            }
            entities = table
            return stored
        }

        func release(_ release: String) -> [ICD11Entity] {
            Array((entities[release] ?? [:]).values)
        }

        func count() -> Int {
            entities.values.reduce(0) { $0 + $1.count }
        }
    }

    @discardableResult
    public func save(_ entity: ICD11Entity) async throws -> ICD11Entity {
        try await store.save([entity])[0]
    }

    @discardableResult
    public func save(_ entities: [ICD11Entity]) async throws -> [ICD11Entity] {
        try await store.save(entities)
    }

    public func find(code: String, release: String) async throws -> ICD11Entity? {
        await store.release(release).first { $0.code == code }
    }

    public func find(uri: String, release: String) async throws -> ICD11Entity? {
        await store.release(release).filter { $0.uri == uri || $0.linearizationURI == uri }.min { $0.code < $1.code }
    }

    public func search(_ text: String, release: String, limit: Int) async throws -> [ICD11Entity] {
        try ICD11CacheSearch.results(text, in: await store.release(release), limit: limit)
    }

    public func count() async throws -> Int {
        await store.count()
    }
}
