import MedVaultCore

/// Brings a database's schema up to date, one migration at a time.
///
/// Migrations are numbered 1, 2, 3… and the number of the last one applied is kept
/// in `PRAGMA user_version`. Each migration runs in its own transaction together with
/// the bump of `user_version`, so a crash leaves the schema at a whole version.
/// A database whose version is higher than the last migration this build knows was
/// written by a newer MedVault: it is refused with `MedVaultError.Code.schemaTooNew`
/// and not touched.
///
/// ```swift
/// let migrator = SchemaMigrator([
///     .init(version: 1, name: "create notes") { db in
///         try db.executeScript("CREATE TABLE note(id BLOB PRIMARY KEY, body TEXT NOT NULL);")
///     },
/// ])
/// ```
public struct SchemaMigrator: Sendable {
    /// One step of the schema's history. Never edit a released migration: add a new one.
    public struct Migration: Sendable {
        /// Its position in the history, starting at 1.
        public let version: Int
        /// A short name for logs and `medvault info`.
        public let name: String
        /// Changes the schema. Runs inside a transaction.
        public let apply: @Sendable (DatabaseConnection) throws -> Void

        /// Creates a migration.
        public init(version: Int, name: String, apply: @escaping @Sendable (DatabaseConnection) throws -> Void) {
            self.version = version
            self.name = name
            self.apply = apply
        }
    }

    /// The migrations, in order.
    public let migrations: [Migration]

    /// Creates a migrator.
    ///
    /// Versions must run 1, 2, 3… without gaps; anything else is a programming error
    /// reported when the migrator runs.
    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    /// The schema version this build writes.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Whether `connection`'s schema is at ``latestVersion`` already, so that
    /// ``migrate(_:)`` has nothing to do.
    ///
    /// - Throws: `invalidArgument` for a migrator whose versions do not run 1, 2, 3…;
    ///   `schemaTooNew` for a database written by a newer MedVault.
    func isUpToDate(_ connection: DatabaseConnection) throws -> Bool {
        try appliedVersion(connection) == latestVersion
    }

    /// Applies the missing migrations on `connection`, each in its own transaction.
    func migrate(_ connection: DatabaseConnection) throws {
        let current = try appliedVersion(connection)
        for migration in migrations.dropFirst(current) {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try migration.apply(connection)
                try connection.executeScript("PRAGMA user_version = \(migration.version)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The database's schema version, checked against this migrator.
    private func appliedVersion(_ connection: DatabaseConnection) throws -> Int {
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw MedVaultError(.invalidArgument,
                                reason: "migration versions must run 1, 2, 3… without gaps (found \(migration.version))")
        }
        let current = try connection.fetchOne("PRAGMA user_version") { row in Int(row.int64(at: 0)) } ?? 0
        guard current <= latestVersion else {
            throw MedVaultError(.schemaTooNew,
                                reason: "the database schema (version \(current)) is newer than this MedVault understands (version \(latestVersion))")
        }
        return current
    }
}
