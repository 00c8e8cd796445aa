/// The migration "icd11 catalogue cache": the offline ICD-11 cache, one row per
/// category fetched from the catalogue or chosen for a diagnosis (see
/// `SQLCipherICD11CacheRepository`).
///
/// Titles are a JSON object from language tag to title, written and read by Swift
/// (SQLCipher 3.4's SQLite has no JSON1); the cache is small (the codes a practice
/// uses), so a search reads the release's rows and matches them with `SearchText`,
/// exactly as the in-memory cache does.
///
/// Frozen once released: a later change is a new migration.
enum ICD11CacheSchema {
    static func createCache(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE icd11_cache (
                release_version TEXT NOT NULL,    -- YYYY-MM
                code TEXT NOT NULL,               -- MMS code
                uri TEXT NOT NULL,                -- the URI a snapshot keeps
                linearization_uri TEXT,           -- the MMS URI in its release
                titles TEXT NOT NULL,             -- JSON object: language tag -> title
                cached_at INTEGER NOT NULL,       -- last saved, milliseconds UTC
                PRIMARY KEY (release_version, code)
            ) WITHOUT ROWID;
            CREATE INDEX icd11_cache_uri ON icd11_cache(release_version, uri);
            """)
    }
}
