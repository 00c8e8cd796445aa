import Foundation
import MedVault

/// Grows a database by `mebibytes` MiB of 1 MiB blobs in a table of the benchmark's
/// own (`bench_ballast`), in transactions of at most 64 MiB. The blobs are zeros;
/// SQLCipher encrypts every page, so the file holds that much ciphertext either way.
enum VaultBallast {
    static let createSQL = "CREATE TABLE IF NOT EXISTS bench_ballast(id INTEGER PRIMARY KEY, data BLOB NOT NULL);"

    /// The statement adding `count` 1 MiB rows.
    static func insertSQL(count: Int) -> String {
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) \
        INSERT INTO bench_ballast(data) SELECT zeroblob(1048576) FROM n;
        """
    }

    /// Through MedVault's pool (the vault's own database handle).
    static func grow(_ pool: VaultDatabase, mebibytes: Int) async throws {
        try await pool.write { db in try db.executeScript(createSQL) }
        var left = mebibytes
        while left > 0 {
            let count = min(64, left)
            try await pool.write(duration: .long) { db in try db.executeScript(insertSQL(count: count)) }
            left -= count
        }
        try await pool.checkpoint()
    }

    /// Through raw C, the same statements.
    static func grow(_ db: RawSQLCipher, mebibytes: Int) throws {
        try db.exec(createSQL)
        var left = mebibytes
        while left > 0 {
            let count = min(64, left)
            try db.exec("BEGIN IMMEDIATE; \(insertSQL(count: count)) COMMIT;")
            left -= count
        }
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// The size of a file, in bytes.
    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Free space on the volume holding `url`, in bytes.
    static func freeSpace(at url: URL) -> Int {
        ((try? FileManager.default.attributesOfFileSystem(forPath: url.path)[.systemFreeSize]) as? NSNumber)?
            .intValue ?? 0
    }
}
