/// An app's own migrations, for its own tables in the vault's database.
///
/// A vault runs them after every MedVault migration, each once, in the order they
/// were registered, each in its own transaction (see ``SchemaMigrator``). Their names
/// are recorded with the prefix ``namePrefix`` (`"app:"`), which no MedVault migration
/// uses, so an app's "v1" never collides with MedVault's history. Pass them in
/// ``Vault/Options/appMigrations``, every time the vault is created or opened:
///
/// ```swift
/// var migrations = AppMigrations()
/// migrations.register("reminders") { db in
///     try db.executeScript("""
///         CREATE TABLE app_reminder (id BLOB PRIMARY KEY, patient_id BLOB NOT NULL, due_at INTEGER NOT NULL);
///         """)
/// }
/// let vault = try await Vault.open(at: folder, password: password,
///                                  options: Vault.Options(appMigrations: migrations))
/// ```
///
/// The rules of MedVault's own migrations apply: never edit or rename a released
/// migration, add a new one; copy into a migration whatever it needs rather than
/// calling code that may change. An app migration must touch only the app's tables:
/// MedVault's tables, indexes and triggers belong to MedVault's migrations, and a
/// later MedVault migration assumes it finds exactly what its predecessors made. Name
/// your tables with a prefix of your own (`app_…`). A database that has applied an
/// app migration this build does not register is refused with `schemaTooNew`.
public struct AppMigrations: Sendable {
    /// The prefix of every app migration's recorded name.
    public static let namePrefix = "app:"

    /// The migrations, in registration order, under their recorded names.
    private(set) var migrations: [SchemaMigrator.Migration] = []

    /// Creates an empty list.
    public init() {}

    /// The names as registered (without ``namePrefix``), in order.
    public var names: [String] {
        migrations.map { String($0.name.dropFirst(Self.namePrefix.count)) }
    }

    /// Adds a migration that runs after the ones registered before it.
    ///
    /// - Parameters:
    ///   - name: Its identity among the app's migrations, recorded as `"app:" + name`.
    ///     Names must be unique and not empty: a repeated or empty name makes opening
    ///     the vault fail with `invalidArgument`.
    ///   - migrate: The change. It runs inside a transaction: do not begin or commit one.
    public mutating func register(_ name: String, migrate: @escaping @Sendable (DatabaseConnection) throws -> Void) {
        // An empty name stays empty, so that the migrator refuses it.
        migrations.append(.init(name.isEmpty ? "" : Self.namePrefix + name, apply: migrate))
    }
}
