import Foundation
import MedVault
import MedVaultKeys

/// Database files with MedVault's real schema, for both sides.
///
/// The schema is MedVault's own: a database is created once through
/// `VaultDatabase.open(…, migrator: MedVaultSchema.migrator)`, and its DDL is read back
/// from `sqlite_master` (FTS4 shadow tables left out: creating the virtual table makes
/// them) with its `user_version` and its record of applied migrations. Raw files get
/// that script, so a file built by raw C is exactly what MedVault would have created,
/// and MedVault opens it as its own.
struct ClinicFixture: Sendable {
    /// The DDL, in creation order, and the schema version.
    let script: String
    let userVersion: Int64

    /// Creates MedVault's schema in a scratch file and captures its DDL.
    static func capture(in context: BenchmarkContext) async throws -> ClinicFixture {
        let key = context.databaseKey(salt: 0xFF)
        let url = context.databaseURL("schema-template.db")
        let pool = try await VaultDatabase.open(at: url, key: key.secure, mode: .createIfMissing,
                                               migrator: MedVaultSchema.migrator)
        await pool.close()
        key.secure.wipe()
        let db = try RawSQLCipher(path: url.path, key: .raw(key.bytes), role: .reader)
        let query = try db.prepare("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        var entries: [(name: String, sql: String)] = []
        while try query.step() { entries.append((query.text(at: 0), query.text(at: 1))) }
        let virtualTables = entries.filter { $0.sql.hasPrefix("CREATE VIRTUAL TABLE") }.map(\.name)
        let statements = entries.filter { entry in
            !entry.name.hasPrefix("sqlite_") && !virtualTables.contains { entry.name.hasPrefix($0 + "_") }
        }.map { $0.sql + ";" }
        // The migrations' record, so MedVault finds its history applied.
        let applied = try db.prepare("SELECT name FROM \(SchemaMigrator.appliedMigrationsTable) ORDER BY rowid")
        var records: [String] = []
        while try applied.step() {
            let name = applied.text(at: 0).replacingOccurrences(of: "'", with: "''")
            records.append("INSERT INTO \(SchemaMigrator.appliedMigrationsTable) (name) VALUES ('\(name)');")
        }
        // The change log's device, as the migration draws it (a fresh one per fixture file).
        records.append("INSERT INTO medvault_device (device_id) VALUES (randomblob(16));")
        let version = try db.scalarInt64("PRAGMA user_version") ?? 0
        guard version > 0, statements.count > 5 else { throw BenchmarkError("could not capture MedVault's schema") }
        return ClinicFixture(script: (statements + records).joined(separator: "\n"), userVersion: version)
    }

    /// A new file at `url` with the schema, through raw C (writer role, WAL).
    func create(at url: URL, key: RawSQLCipher.Key) throws -> RawSQLCipher {
        let db = try RawSQLCipher(path: url.path, key: key, create: true)
        try db.exec("BEGIN IMMEDIATE; \(script) PRAGMA user_version = \(userVersion); COMMIT;")
        return db
    }

    /// A new file at `url` holding `data`, written through raw C and checkpointed.
    ///
    /// `datasetOrder` lays the rows out as W1 and the plain peers write them (a chunk of
    /// patients, then their sessions patient by patient, so one patient's sessions and
    /// diagnoses sit on neighbouring pages); otherwise every patient comes first, then
    /// every session in date order (one patient's sessions on as many pages).
    func build(at url: URL, key: RawSQLCipher.Key, data: ClinicData, datasetOrder: Bool = false) throws {
        let db = try create(at: url, key: key)
        if datasetOrder {
            try RawClinic.insertChunked(data, into: db)
        } else {
            try RawClinic.insert(data, into: db)
        }
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE);")
    }
}
