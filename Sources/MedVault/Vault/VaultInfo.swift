import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `medvault info` shows about a vault: formats, settings and counts, never a
/// record's content.
public struct VaultInfo: Sendable {
    /// The vault's identifier.
    public let vaultID: UUID
    /// The keyring file's format version.
    public let keyringFormatVersion: UInt16
    /// The database's schema version (`PRAGMA user_version`).
    public let schemaVersion: Int
    /// The cipher settings the keyring records for the database.
    public let cipherSettings: CipherSettings
    /// The SQLCipher library version in use.
    public let sqlcipherVersion: String
    /// The key slots: kind and, for password slots, the Argon2id parameters.
    public let slots: [KeySlot]
    /// How many times the database key was rotated, plus one.
    public let databaseKeyGeneration: UInt64
    /// Rows per table, by table name (`patient`, `clinical_session`, …).
    public let recordCounts: [String: Int]
    /// The database file's size in bytes (WAL excluded).
    public let databaseByteCount: Int

    /// The password slots whose Argon2id costs are below `Argon2Parameters.productionFloor`
    /// (made with the test preset, or by an old tool): empty for a vault fit for real records.
    public var weakPasswordSlots: [KeySlot] { slots.filter(\.isBelowProductionFloor) }
}

/// The outcome of ``Vault/verify()``: empty ``problems`` means the vault is sound.
public struct VaultVerification: Sendable {
    /// One line per problem found; never contains record data.
    public let problems: [String]
    /// The checks that ran, for a report.
    public let checks: [String]
    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }
}

extension Vault {
    /// Tables whose row counts ``info()`` reports, when they exist.
    static let countedTables = RecordTableRegistry.recordTables.map(\.table.rawValue)

    /// Formats, settings and record counts; no record content.
    ///
    /// - Throws: `locked`, storage errors.
    public func info() async throws -> VaultInfo {
        let keyring = await keys.keyring
        _ = try await keys.requireVaultKey()
        let tables = Self.countedTables
        // Long: counting scans whole tables (dose logs run to millions of rows).
        let (schemaVersion, version, counts) = try await database.read(duration: .long) { db in
            let schema = try db.fetchOne("PRAGMA user_version") { row in Int(row.int64(at: 0)) } ?? 0
            let version = try db.cipherVersion()
            // `diagnosis` is a view over its rows and their shared ICD-11 snapshots.
            let existing = Set(try db.fetchAll("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')") {
                row in row.text(at: 0)
            })
            var counts: [String: Int] = [:]
            for table in tables where existing.contains(table) {
                counts[table] = try db.fetchOne("SELECT count(*) FROM \(table)") { row in Int(row.int64(at: 0)) } ?? 0
            }
            return (schema, version, counts)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: layout.database.path)[.size] as? Int) ?? 0
        return VaultInfo(vaultID: vaultID, keyringFormatVersion: keyring.formatVersion, schemaVersion: schemaVersion,
                         cipherSettings: keyring.cipherSettings, sqlcipherVersion: version, slots: keyring.slots,
                         databaseKeyGeneration: keyring.databaseKeyGeneration, recordCounts: counts,
                         databaseByteCount: size)
    }

    /// Checks the vault: SQLCipher is in use with the recorded cipher settings (each one
    /// read back from SQLCipher: cipher, page size, HMAC, `kdf_iter`, `fast_kdf_iter` and,
    /// on SQLCipher 4, the HMAC and KDF algorithms), the database passes
    /// `PRAGMA integrity_check` and `PRAGMA foreign_key_check`, every page it reads
    /// decrypts and authenticates, the file's length is its page count (no garbage
    /// appended, no tail lost), the schema is the one this build writes, password slots
    /// meet the production floor, no rotation is left pending, no temporary keyring was
    /// left behind, the folder and files are private to their owner, and no `-wal`,
    /// `-shm` or `-journal` is a link or a special file.
    ///
    /// A damaged page is a problem line, not an error: the other file checks still run.
    ///
    /// - Returns: The checks run and the problems found.
    /// - Throws: `locked`; storage errors that prevent checking at all.
    public func verify() async throws -> VaultVerification {
        let keyring = await keys.keyring
        _ = try await keys.requireVaultKey()
        var problems: [String] = []
        var checks: [String] = []
        let expectedSchema = MedVaultSchema.migrator.latestVersion
        // Long: the integrity and foreign-key checks read the whole database.
        let result: VerificationReadings
        do {
            result = try await database.read(duration: .long) { db in try Self.verificationReadings(db) }
        } catch let error as MedVaultError where error.code == .corrupted {
            // A damaged page stops the checks: report it, with the other file checks.
            checks.append("database pages readable")
            problems.append("the database has damaged pages that do not decrypt or authenticate: restore a backup")
            appendFileProblems(into: &problems, checks: &checks)
            return VaultVerification(problems: problems, checks: checks)
        }
        checks.append("SQLCipher \(result.cipher) in use")
        if result.cipher.isEmpty { problems.append("the database is not opened through SQLCipher") }
        checks.append("cipher settings as the keyring records (\(result.settings.summary))")
        problems += result.settings.problems(against: keyring.cipherSettings)
        checks.append("integrity check")
        if result.integrity != ["ok"] {
            problems.append("integrity check failed (\(result.integrity.count) findings)")
        }
        checks.append("foreign key check")
        if result.foreignKeyViolations > 0 {
            problems.append("\(result.foreignKeyViolations) rows reference missing records")
        }
        checks.append("schema version \(result.schema)")
        if result.schema != expectedSchema {
            problems.append("schema version \(result.schema), expected \(expectedSchema)")
        }
        checks.append("password slots meet the Argon2id production floor")
        problems += Self.weakSlotProblems(keyring.slots)
        checks.append("no pending key rotation")
        if keyring.hasPendingRotation { problems.append("a key rotation is pending") }
        checks.append("no temporary keyrings")
        for name in KeyringFile.temporaryFiles(besides: layout.keyring) {
            problems.append("temporary keyring \(name) was left by an interrupted write; opening the vault again removes it")
        }
        checks.append("database length \(result.pageCount) pages")
        let pageSize = max(1, result.pageSize)
        let fileSize = Self.fileSize(layout.database)
        if fileSize > result.pageCount * pageSize {
            problems.append("the database file has \((fileSize - result.pageCount * pageSize) / pageSize) pages past its end: "
                            + "bytes were appended to it")
        } else if fileSize < result.pageCount * pageSize && !result.walHoldsPages {
            problems.append("the database file is shorter than its \(result.pageCount) pages: it lost its tail")
        }
        appendFileProblems(into: &problems, checks: &checks)
        return VaultVerification(problems: problems, checks: checks)
    }

    /// What ``verify()`` reads from the database.
    struct VerificationReadings: Sendable {
        var cipher: String
        var settings: CipherSettingsReadBack
        var pageSize: Int
        var integrity: [String]
        var foreignKeyViolations: Int
        var schema: Int
        var pageCount: Int
        /// The WAL holds committed pages not yet copied into the file (it may be shorter).
        var walHoldsPages: Bool
    }

    static func verificationReadings(_ db: DatabaseConnection) throws -> VerificationReadings {
        func integer(_ sql: String) throws -> Int {
            try db.fetchOne(sql) { row in Int(row.int64(at: 0)) } ?? 0
        }
        let pageCount = try integer("PRAGMA page_count")
        let walFile = db.databaseFile.map { $0.path + "-wal" } ?? ""
        return VerificationReadings(
            cipher: try db.cipherVersion(),
            settings: try db.readCipherSettings(),
            pageSize: try integer("PRAGMA cipher_page_size"),
            integrity: try db.fetchAll("PRAGMA integrity_check") { row in row.text(at: 0) },
            foreignKeyViolations: try db.fetchAll("PRAGMA foreign_key_check") { row in row.text(at: 0) }.count,
            schema: try integer("PRAGMA user_version"),
            pageCount: pageCount,
            walHoldsPages: fileSize(URL(fileURLWithPath: walFile)) > 32)
    }

    static func fileSize(_ url: URL) -> Int {
        var status = stat()
        return lstat(url.path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Folder and file permissions, and companions that are links or not regular files.
    private func appendFileProblems(into problems: inout [String], checks: inout [String]) {
        checks.append("folder permissions")
        if let problem = VaultFolder.permissionProblem(layout.folder) { problems.append(problem) }
        checks.append("file permissions and types")
        // The audit checkpoint and the refused-unlock count are the vault's too: a
        // checkpoint others can replace, or a link, would let them roll the trail back.
        for file in [layout.database, layout.keyring, layout.auditCheckpoint, layout.unlockFailures] {
            var status = stat()
            guard lstat(file.path, &status) == 0 else { continue }
            guard status.st_mode & S_IFMT == S_IFREG else {
                problems.append("\(file.lastPathComponent) is not a regular file (a link, a folder or a special file)")
                continue
            }
            let mode = Int(status.st_mode & 0o777)
            if mode & 0o077 != 0 {
                problems.append("\(file.lastPathComponent) is open to other users (mode \(String(mode, radix: 8)))")
            }
        }
        checks.append("no linked or special companion files")
        for file in [layout.database, layout.keyring] {
            for suffix in DatabaseFile.companionSuffixes {
                if let problem = DatabaseFile.companionProblem(file.path + suffix) {
                    problems.append("\(file.lastPathComponent)\(suffix) \(problem)")
                }
            }
        }
    }

    /// One problem line per password slot below the production floor.
    static func weakSlotProblems(_ slots: [KeySlot]) -> [String] {
        let floor = Argon2Parameters.productionFloor
        return slots.compactMap { slot in
            guard slot.isBelowProductionFloor, let weak = slot.argon2Parameters else { return nil }
            return "a password slot uses Argon2id m=\(weak.memoryKiB) KiB, t=\(weak.iterations), "
                + "below the production floor (m=\(floor.memoryKiB) KiB, t=\(floor.iterations))"
        }
    }
}
