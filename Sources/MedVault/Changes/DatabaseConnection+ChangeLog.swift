import Foundation
import MedVaultCore

extension DatabaseConnection {
    /// Appends an entry to the vault's change log for a change your app made to a row
    /// of its own table, in the current write transaction: observers of `table` are
    /// notified after the commit, and `Vault.changes(after:limit:)` lists the entry like
    /// MedVault's own. If the transaction rolls back, the entry goes with it.
    ///
    /// For example:
    ///
    /// ```swift
    /// try await vault.database.write { db in
    ///     try db.execute("INSERT INTO app_reminder (id, due_at, version) VALUES (?, ?, 1)",
    ///                    [reminder.id.vaultValue, reminder.dueAt.vaultValue])
    ///     try db.logChange(in: "app_reminder", id: reminder.id, operation: .insert, version: 1)
    /// }
    /// ```
    ///
    /// Log one entry per row your operation changes, as MedVault does. The entry holds
    /// the table name, the id, the operation, the version, a hybrid logical clock
    /// timestamp and the device id: never a field value.
    ///
    /// - Parameters:
    ///   - table: An existing app table: letters, digits and `_`, not starting with a
    ///     digit, `sqlite_` or `medvault`, and not one of MedVault's record tables.
    ///   - id: The row's identifier.
    ///   - operation: What happened: `.insert`, `.update`, `.delete`, or a name of your
    ///     own (letters, digits and `_`, at most 32).
    ///   - version: The row's version after the change (before it, for a delete), at
    ///     least 1; `nil` if the table keeps none.
    /// - Throws: `invalidArgument` (nothing is logged) when the name is not a plain
    ///   identifier, names a MedVault table or no table, the operation is not a plain
    ///   name, the version is below 1, or no write transaction is open (call it inside
    ///   `vault.database.write`).
    public func logChange(in table: VaultTable, id: UUID, operation: ChangeOperation, version: Int64? = nil) throws {
        try checkAppTable(table)
        guard Self.isPlainIdentifier(operation.rawValue, maximumLength: 32) else {
            throw MedVaultError(.invalidArgument, field: "operation",
                                reason: "a change operation is letters, digits and underscores, at most 32")
        }
        if let version, version < 1 {
            throw MedVaultError(.invalidArgument, field: "version", reason: "a logged version is at least 1")
        }
        try changeLog.append(table: table, id: id, operation: operation, version: version)
    }

    /// Checks that `table` may be logged by an app, once per connection and table.
    private func checkAppTable(_ table: VaultTable) throws {
        if changeLog.checkedAppTables.contains(table) { return }
        let name = table.rawValue
        guard Self.isPlainIdentifier(name, maximumLength: 64) else {
            throw MedVaultError(.invalidArgument, field: "table",
                                reason: "a change-logged table name is letters, digits and underscores")
        }
        let lowered = name.lowercased()
        guard !lowered.hasPrefix("sqlite_"), !lowered.hasPrefix("medvault"),
              !VaultTable.recordTables.contains(VaultTable(lowered)) else {
            throw MedVaultError(.invalidArgument, field: "table",
                                reason: "the table belongs to MedVault, whose repositories log it; only app tables can log changes")
        }
        let exists = try fetchOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                                  [.text(name)]) { _ in true } ?? false
        guard exists else {
            throw MedVaultError(.invalidArgument, field: "table", reason: "there is no table of that name to log")
        }
        changeLog.checkedAppTables.insert(table)
    }

    /// Runs `body` in a savepoint of the current write transaction: when it throws, its
    /// changes, change-log and audit entries roll back with it (the writers' cached heads
    /// are dropped) and the error is rethrown; the transaction goes on.
    package func inSavepoint<Value>(_ body: () throws -> Value) throws -> Value {
        try execute("SAVEPOINT medvault_package_step")
        let logged = changeLog.mark()
        do {
            let value = try body()
            try execute("RELEASE medvault_package_step")
            return value
        } catch {
            // The writers' cached heads go whatever happens next: a failed rollback leaves
            // the transaction to fail, with that error.
            defer { changeLog.restore(logged) }
            try execute("ROLLBACK TO medvault_package_step")
            try execute("RELEASE medvault_package_step")
            throw error
        }
    }

    private static func isPlainIdentifier(_ name: String, maximumLength: Int) -> Bool {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, scalars.count <= maximumLength,
              first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return scalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
            || ("0"..."9").contains($0) }
    }
}
