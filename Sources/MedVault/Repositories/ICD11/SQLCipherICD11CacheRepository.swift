import Foundation
import MedVaultCore

/// The SQLCipher `ICD11CacheRepository`: the offline ICD-11 cache in the vault's
/// `icd11_cache` table, encrypted like every other record.
///
/// It holds no patient data: only WHO catalogue entries (code, titles, URIs, release).
///
/// For example:
///
/// ```swift
/// let cache = SQLCipherICD11CacheRepository(pool: vault.database)
/// try await cache.save(entity)
/// let hits = try await cache.search("ansiedad", release: "2024-01", limit: 10)
/// ```
public struct SQLCipherICD11CacheRepository: ICD11CacheRepository {
    /// The database.
    public let pool: VaultDatabase
    /// Where `cached_at` reads "now".
    public let clock: RecordClock

    /// Creates a repository over `pool`, whose schema is ``MedVaultSchema/migrator``'s.
    public init(pool: VaultDatabase, clock: RecordClock = .system) {
        self.pool = pool
        self.clock = clock
    }

    static let columns = "release_version, code, uri, linearization_uri, titles"

    // MARK: - Writing

    @discardableResult
    public func save(_ entity: ICD11Entity) async throws -> ICD11Entity {
        try await save([entity])[0]
    }

    @discardableResult
    public func save(_ entities: [ICD11Entity]) async throws -> [ICD11Entity] {
        let valid = try entities.map { try $0.validated() }
        guard !valid.isEmpty else { return [] }
        let now = clock.now()
        return try await pool.write { db in try valid.map { try Self.save($0, at: now, db) } }
    }

    /// Merges `entity` (already validated) into its row, in the caller's transaction.
    static func save(_ entity: ICD11Entity, at now: Date, _ db: DatabaseConnection) throws -> ICD11Entity {
        let merged = try find(code: entity.code, release: entity.releaseVersion, db).map { $0.merging(entity) } ?? entity
        try db.execute("DELETE FROM icd11_cache WHERE release_version = ? AND code = ?",
                       [.text(merged.releaseVersion), .text(merged.code)])
        try db.execute("INSERT INTO icd11_cache (\(columns), cached_at) VALUES (?, ?, ?, ?, ?, ?)", [
            .text(merged.releaseVersion), .text(merged.code), .text(merged.uri),
            merged.linearizationURI.map(VaultValue.text) ?? .null, .text(try encodeTitles(merged.titles)),
            now.vaultValue,
        ])
        return merged
    }

    // MARK: - Reading

    public func find(code: String, release: String) async throws -> ICD11Entity? {
        try await pool.read { db in try Self.find(code: code, release: release, db) }
    }

    static func find(code: String, release: String, _ db: DatabaseConnection) throws -> ICD11Entity? {
        try db.fetchOne("SELECT \(columns) FROM icd11_cache WHERE release_version = ? AND code = ?",
                        [.text(release), .text(code)], entity)
    }

    public func find(uri: String, release: String) async throws -> ICD11Entity? {
        try await pool.read { db in
            try db.fetchOne("""
                SELECT \(Self.columns) FROM icd11_cache WHERE release_version = ? AND (uri = ? OR linearization_uri = ?)
                ORDER BY code
                """, [.text(release), .text(uri), .text(uri)], Self.entity)
        }
    }

    public func search(_ text: String, release: String, limit: Int) async throws -> [ICD11Entity] {
        // Arguments are checked before the table is read.
        _ = try ICD11CacheSearch.results(text, in: [], limit: limit)
        let candidates = try await pool.read { db in
            try db.fetchAll("SELECT \(Self.columns) FROM icd11_cache WHERE release_version = ?", [.text(release)], Self.entity)
        }
        return try ICD11CacheSearch.results(text, in: candidates, limit: limit)
    }

    public func count() async throws -> Int {
        try await pool.read { db in try db.fetchOne("SELECT count(*) FROM icd11_cache") { try $0[0] as Int } ?? 0 }
    }

    // MARK: - Rows

    static func entity(_ row: VaultRow) throws -> ICD11Entity {
        ICD11Entity(code: try row["code"], titles: try decodeTitles(try row["titles"]), uri: try row["uri"],
                    linearizationURI: try row["linearization_uri"], releaseVersion: try row["release_version"])
    }

    static func encodeTitles(_ titles: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(titles), as: UTF8.self)
    }

    static func decodeTitles(_ json: String) throws -> [String: String] {
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        } catch {
            throw MedVaultError(.corrupted, reason: "a cached ICD-11 entry's titles are not readable")
        }
    }
}
