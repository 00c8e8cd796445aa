import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// Exports a consistent snapshot of a live database into a new encrypted file, and
/// checks such a copy.
///
/// The export runs on a connection of its own, inside one read transaction: in WAL mode
/// the transaction sees the database as it was at its first read, while the vault's
/// writer (and other processes) keep committing. `sqlcipher_export` copies every table,
/// index, trigger and virtual table of that snapshot into an attached file encrypted
/// under the copy's key with the keyring's cipher settings.
enum DatabaseSnapshot {
    /// What a snapshot or a copy holds: its schema version and the rows of every table.
    struct Contents: Sendable, Equatable {
        var schemaVersion: Int
        var rowCounts: [String: Int]
        /// The audit trail's first entry and head (by ``verify(_:key:configuration:migrator:)``;
        /// `nil` for an empty trail).
        var auditTrail: AuditAnchor.Trail? = nil
    }

    /// Writes the snapshot of `source` (under `sourceKey`) to the new file `destination`,
    /// encrypted under `copyKey`, and syncs it.
    ///
    /// - Parameter progress: Called with the fraction written, 0…1; return `false` to stop
    ///   (`cancelled` is thrown; the caller removes the partial file).
    /// - Returns: The snapshot's contents, counted inside the export's transaction.
    static func export(
        _ source: URL, sourceKey: SecureBytes, to destination: URL, copyKey: SecureBytes,
        configuration: DatabaseConfiguration, progress: @escaping (Double) -> Bool
    ) throws -> Contents {
        try DatabaseFile.checkCompanions(of: source)
        try BackupFolder.createEmptyFile(destination)
        let connection = try DatabaseConnection.open(path: source.path, key: sourceKey, role: .writer,
                                                     configuration: configuration)
        defer { connection.close() }
        let literal = try DatabaseConnection.rawKeyLiteral(copyKey)
        defer { literal.wipe() }
        try connection.attach(destination.path, as: "backup", keyLiteral: literal)
        try connection.applyCipherSettings(configuration.cipherSettings, schema: "backup")
        let contents: Contents
        try connection.executeScript("BEGIN DEFERRED;")
        do {
            // The first read fixes the snapshot; everything below sees the same one.
            contents = try Self.contents(connection, schema: "main")
            // Progress is rows copied (SQLite counts each row the export inserts) against
            // the snapshot's rows: the copy's file grows only when its cache spills.
            let rows = max(1, contents.rowCounts.values.reduce(0, +))
            let handle = connection.handle
            let base = medvault_sqlite3_total_changes(handle)
            var stopped = false
            try withProgressHandler(on: connection, every: 1_000, {
                let copied = Int(medvault_sqlite3_total_changes(handle) - base)
                if progress(min(0.99, Double(copied) / Double(rows))) { return true }
                stopped = true
                return false
            }) {
                do {
                    try connection.executeScript("SELECT sqlcipher_export('backup');")
                } catch where stopped {
                    throw MedVaultError(.cancelled, reason: "the backup was stopped")
                }
            }
            try connection.executeScript("PRAGMA backup.user_version = \(contents.schemaVersion);")
            try connection.executeScript("COMMIT;")
        } catch {
            try? connection.executeScript("ROLLBACK;")
            throw error
        }
        try connection.executeScript("DETACH DATABASE backup;")
        _ = progress(1)
        try BackupFolder.syncFile(destination)
        return contents
    }

    /// Opens the copy at `url` with `key` on a fresh read-only connection and checks
    /// it: the key opens it, `PRAGMA integrity_check` and `PRAGMA foreign_key_check`
    /// pass, its schema is one this build knows (older is fine: opening migrates it),
    /// and its length is exactly its page count times its page size.
    ///
    /// - Returns: Its contents.
    /// - Throws: `notADatabase` when the key does not open it; `corrupted` when a check
    ///   fails; `schemaTooNew`.
    static func verify(_ url: URL, key: SecureBytes, configuration: DatabaseConfiguration,
                       migrator: SchemaMigrator) throws -> Contents {
        try DatabaseFile.checkCompanions(of: url)
        _ = try DatabaseFile.inspect(url, mode: .openExisting, pageSize: configuration.cipherPageSize)
        let connection: DatabaseConnection
        do {
            connection = try DatabaseConnection.open(path: url.path, key: key, role: .reader, configuration: configuration)
        } catch let error as MedVaultError where error.code == .wrongKey {
            throw MedVaultError(.notADatabase,
                                reason: "the backup's database does not decrypt with its keyring's key: it is damaged or belongs to another vault",
                                sqliteCode: error.sqliteCode)
        }
        defer { connection.close() }
        do {
            let integrity = try connection.fetchAll("PRAGMA integrity_check") { row in row.text(at: 0) }
            guard integrity == ["ok"] else {
                throw MedVaultError(.corrupted, reason: "the backup's database failed its integrity check (\(integrity.count) findings)")
            }
            let violations = try connection.fetchAll("PRAGMA foreign_key_check") { row in row.text(at: 0) }
            guard violations.isEmpty else {
                throw MedVaultError(.corrupted, reason: "the backup's database has \(violations.count) rows that reference missing records")
            }
            _ = try migrator.isUpToDate(connection)
            try checkLength(of: url, connection)
            var found = try contents(connection, schema: "main")
            let first = try connection.fetchOne("SELECT mac FROM medvault_audit WHERE seq = 1") { row in [UInt8](row.blob(at: 0)) }
            if let first, let head = try AuditTrailReader.head(connection) {
                found.auditTrail = AuditAnchor.Trail(first: first, sequence: head.sequence, head: head.mac)
            }
            return found
        } catch let error as MedVaultError where error.code == .corrupted || error.sqliteResultCode?.primary == .notADatabase {
            throw MedVaultError(.corrupted, reason: "the backup's database is damaged: \(error.reason)", sqliteCode: error.sqliteCode)
        }
    }

    /// A copy has no write-ahead log: its file is exactly its pages. SQLite reads only
    /// the pages page 1 declares, so bytes appended to the file (random, or another
    /// database's valid page) pass `integrity_check` and would be restored as they are.
    ///
    /// - Throws: `corrupted` when the file is longer or shorter than its pages.
    private static func checkLength(of url: URL, _ connection: DatabaseConnection) throws {
        let pages = try connection.fetchOne("PRAGMA page_count") { row in Int(row.int64(at: 0)) } ?? 0
        let pageSize = try connection.fetchOne("PRAGMA cipher_page_size") { row in Int(row.int64(at: 0)) } ?? 0
        let length = DatabaseKeyChange.fileSize(url)
        guard length == pages * pageSize else {
            throw MedVaultError(.corrupted, reason: length > pages * pageSize
                ? "the backup's database has \(length - pages * pageSize) bytes past its \(pages) pages: bytes were appended to it"
                : "the backup's database is shorter than its \(pages) pages: it lost its tail")
        }
    }

    /// The schema version and the row count of every table of `schema`, and of each
    /// record table that is a view (`diagnosis`, whose rows the records' counts name).
    /// An app's views are not counted: one may be costly, or name what no longer exists.
    static func contents(_ connection: DatabaseConnection, schema: String) throws -> Contents {
        let version = try connection.fetchOne("PRAGMA \(schema).user_version") { row in Int(row.int64(at: 0)) } ?? 0
        let tables = try connection.fetchAll("""
            SELECT type, name FROM \(schema).sqlite_master \
            WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name
            """) { row in (view: row.text(at: 0) == "view", name: row.text(at: 1)) }
            .filter { !$0.view || VaultTable.recordTables.contains(VaultTable($0.name)) }.map(\.name)
        var counts: [String: Int] = [:]
        for table in tables {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            counts[table] = try connection.fetchOne("SELECT count(*) FROM \(schema).\(quoted)") { row in Int(row.int64(at: 0)) } ?? 0
        }
        return Contents(schemaVersion: version, rowCounts: counts)
    }

    /// Runs `body` with SQLite's progress handler calling `check` every `instructions`
    /// virtual-machine steps; `check` returning `false` interrupts the statement.
    private static func withProgressHandler(
        on connection: DatabaseConnection, every instructions: Int32, _ check: @escaping () -> Bool, _ body: () throws -> Void
    ) throws {
        let box = ProgressCheck(check)
        let context = Unmanaged.passUnretained(box).toOpaque()
        medvault_sqlite3_progress_handler(connection.handle, instructions, { context in
            guard let context else { return 0 }
            return Unmanaged<ProgressCheck>.fromOpaque(context).takeUnretainedValue().check() ? 0 : 1
        }, context)
        defer { medvault_sqlite3_progress_handler(connection.handle, 0, nil, nil) }
        try withExtendedLifetime(box) { try body() }
    }
}

/// Holds the closure SQLite's progress handler calls (a C callback takes no closure).
private final class ProgressCheck {
    let check: () -> Bool
    init(_ check: @escaping () -> Bool) { self.check = check }
}
