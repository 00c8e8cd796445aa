import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

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

    /// A vault and a raw C database with MedVault's schema, both grown by the same
    /// ballast (256 MiB × scale, at least 16 MiB): the pair K3 and B1 copy.
    struct Pair {
        let vault: Vault
        let rawURL: URL
        let key: (bytes: [UInt8], secure: SecureBytes)
        let vaultBytes: Double
        let rawBytes: Double
    }

    /// Creates the pair under `context.directory` (`<prefix>-vault`, `<prefix>-raw.db`).
    static func pair(_ prefix: String, password: String, keySalt: UInt64, in context: BenchmarkContext) async throws -> Pair {
        let mebibytes = max(16, Int((256 * context.scale).rounded()))
        let fixture = try await ClinicFixture.capture(in: context)
        let vault = try await Vault.create(at: context.directory.appendingPathComponent("\(prefix)-vault"),
                                           password: try Password(password)).vault
        try await grow(vault.database, mebibytes: mebibytes)
        let key = context.databaseKey(salt: keySalt)
        let rawURL = context.databaseURL("\(prefix)-raw.db")
        do {
            let db = try fixture.create(at: rawURL, key: .raw(key.bytes))
            try grow(db, mebibytes: mebibytes)
        }
        let pair = Pair(vault: vault, rawURL: rawURL, key: key, vaultBytes: Double(fileSize(vault.layout.database)),
                        rawBytes: Double(fileSize(rawURL)))
        context.log(String(format: "\(prefix.uppercased()): two databases of %.0f MiB", pair.vaultBytes / 1_048_576))
        return pair
    }
}
