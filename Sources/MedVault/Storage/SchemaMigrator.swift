import MedVaultCore

/// Brings a database's schema up to date, one named migration at a time.
///
/// Each migration has a name, unique in its migrator, and runs once per database: the
/// names of the migrations applied are kept in the `medvault_migrations` table, and
/// each migration runs in its own `BEGIN IMMEDIATE` transaction together with the
/// insertion of its name, so a crash leaves the schema between two whole migrations.
/// Pending migrations run in the order they are listed, whatever was applied before.
///
/// A database that has applied a migration this migrator does not know was written by
/// a newer build (of MedVault, or of the app's own migrations): it is refused with
/// `MedVaultError.Code.schemaTooNew` and not touched.
///
/// `PRAGMA user_version` stays meaningful: it is the number of *schema* migrations
/// applied (``latestVersion`` when up to date). The migrations a migrator is created
/// with are schema migrations; those added by ``appending(_:)`` (an app's own tables,
/// see ``AppMigrations``) are tracked by name only. A database from before the
/// migrations table (MedVault's first releases numbered migrations 1, 2, 3… in
/// `user_version` alone) is read as having applied the first `user_version` schema
/// migrations; their names are recorded the first time it is opened.
///
/// ```swift
/// let migrator = SchemaMigrator([
///     .init("create notes") { db in
///         try db.executeScript("CREATE TABLE note(id BLOB PRIMARY KEY, body TEXT NOT NULL);")
///     },
/// ])
/// ```
///
/// Never edit a released migration, and never let one call code that may change later
/// (repository SQL, row mapping, value types): copy what it needs into it. Each change
/// to the schema is a new migration.
public struct SchemaMigrator: Sendable {
    /// One step of the schema's history.
    public struct Migration: Sendable {
        /// The migration's identity, recorded in the database once applied. Never rename
        /// a released migration: the database would run it again.
        public let name: String
        /// Changes the schema. Runs inside a transaction, on the writer connection.
        public let apply: @Sendable (DatabaseConnection) throws -> Void

        /// Creates a migration.
        ///
        /// - Parameters:
        ///   - name: Its identity, unique in the migrator and never changed once released.
        ///   - apply: The change. It runs inside a transaction: do not begin or commit one.
        public init(_ name: String, apply: @escaping @Sendable (DatabaseConnection) throws -> Void) {
            self.name = name
            self.apply = apply
        }
    }

    /// The table that records the names of the applied migrations.
    public static let appliedMigrationsTable = "medvault_migrations"

    /// The migrations, in the order they run.
    public let migrations: [Migration]

    /// How many of ``migrations`` (a prefix) are schema migrations, counted in
    /// `PRAGMA user_version`.
    let schemaMigrationCount: Int

    /// Creates a migrator whose migrations are all schema migrations.
    ///
    /// Names must be unique and not empty; anything else is a programming error
    /// reported (`invalidArgument`) when the migrator runs.
    public init(_ migrations: [Migration]) {
        self.migrations = migrations
        self.schemaMigrationCount = migrations.count
    }

    private init(migrations: [Migration], schemaMigrationCount: Int) {
        self.migrations = migrations
        self.schemaMigrationCount = schemaMigrationCount
    }

    /// The schema version (`PRAGMA user_version`) of a database this migrator has
    /// brought up to date: the number of its schema migrations.
    public var latestVersion: Int { schemaMigrationCount }

    /// This migrator followed by an app's migrations, which run after every one of
    /// this migrator's, under names prefixed ``AppMigrations/namePrefix`` so that they
    /// cannot collide with a schema migration's.
    public func appending(_ app: AppMigrations) -> SchemaMigrator {
        SchemaMigrator(migrations: migrations + app.migrations, schemaMigrationCount: schemaMigrationCount)
    }

    // MARK: - Running

    /// Whether `connection`'s schema is up to date already, so that ``migrate(_:)``
    /// has nothing to do. Reads only.
    ///
    /// - Throws: `invalidArgument` for a migrator with an empty or repeated name;
    ///   `schemaTooNew` for a database written by a newer build.
    func isUpToDate(_ connection: DatabaseConnection) throws -> Bool {
        let state = try appliedState(connection)
        // A database from before the migrations table must get it, even with nothing to run.
        if !state.isRecorded && !state.applied.isEmpty { return false }
        return migrations.allSatisfy { state.applied.contains($0.name) }
    }

    /// Applies the pending migrations on `connection`, each in its own transaction
    /// with its record. The state is read again inside each transaction, so another
    /// process migrating the same file at the same time is harmless.
    func migrate(_ connection: DatabaseConnection) throws {
        try transaction(connection) { state in
            if !state.isRecorded && !state.applied.isEmpty { try record(state.applied, in: connection) }
        }
        for migration in migrations {
            try transaction(connection) { state in
                guard !state.applied.contains(migration.name) else { return }
                try record([], in: connection)
                try migration.apply(connection)
                try connection.execute("INSERT INTO \(Self.appliedMigrationsTable) (name) VALUES (?)",
                                       [.text(migration.name)])
                let version = migrations.prefix(schemaMigrationCount)
                    .filter { $0.name == migration.name || state.applied.contains($0.name) }.count
                try connection.executeScript("PRAGMA user_version = \(version)")
            }
        }
    }

    /// The names of the applied migrations, in the order they were applied.
    ///
    /// - Throws: `schemaTooNew` when the database applied a migration this migrator
    ///   does not know.
    func appliedMigrationNames(_ connection: DatabaseConnection) throws -> [String] {
        let state = try appliedState(connection)
        guard state.isRecorded else { return migrations.prefix(state.applied.count).map(\.name) }
        return try connection.fetchAll("SELECT name FROM \(Self.appliedMigrationsTable) ORDER BY rowid") {
            try $0[0] as String
        }
    }

    // MARK: - State

    /// What a database has applied.
    private struct AppliedState {
        /// The names of the applied migrations.
        var applied: Set<String>
        /// Whether they are recorded in the migrations table (false: deduced from a
        /// pre-table `user_version`, or a new database).
        var isRecorded: Bool
    }

    private func transaction(_ connection: DatabaseConnection, _ body: (AppliedState) throws -> Void) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body(try appliedState(connection))
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Creates the migrations table if missing and records `names` in it.
    private func record(_ names: Set<String>, in connection: DatabaseConnection) throws {
        try connection.executeScript("""
            CREATE TABLE IF NOT EXISTS \(Self.appliedMigrationsTable) (name TEXT NOT NULL PRIMARY KEY);
            """)
        // In migration order, so the table's rowid order is the order of the history.
        for migration in migrations where names.contains(migration.name) {
            try connection.execute("INSERT INTO \(Self.appliedMigrationsTable) (name) VALUES (?)",
                                   [.text(migration.name)])
        }
    }

    private func appliedState(_ connection: DatabaseConnection) throws -> AppliedState {
        var names = Set<String>()
        for migration in migrations {
            guard !migration.name.isEmpty, names.insert(migration.name).inserted else {
                throw MedVaultError(.invalidArgument, reason: "migration names must be unique and not empty")
            }
        }
        let isRecorded = try connection.fetchOne(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(Self.appliedMigrationsTable)]
        ) { _ in true } ?? false
        if isRecorded {
            let applied = try connection.fetchAll("SELECT name FROM \(Self.appliedMigrationsTable)") {
                try $0[0] as String
            }
            let unknown = applied.filter { !names.contains($0) }.count
            guard unknown == 0 else {
                throw MedVaultError(.schemaTooNew,
                                    reason: "the database has applied \(unknown) migration(s) this build does not know: it was written by a newer version")
            }
            return AppliedState(applied: Set(applied), isRecorded: true)
        }
        // Before the migrations table: user_version counted the schema migrations applied.
        let version = try connection.fetchOne("PRAGMA user_version") { row in Int(row.int64(at: 0)) } ?? 0
        guard version <= schemaMigrationCount else {
            throw MedVaultError(.schemaTooNew,
                                reason: "the database schema (version \(version)) is newer than this build understands (version \(schemaMigrationCount))")
        }
        return AppliedState(applied: Set(migrations.prefix(version).map(\.name)), isRecorded: false)
    }
}
