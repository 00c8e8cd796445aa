import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import Testing

/// Helpers of the audit-trail tests.
package enum AuditFixtures {
    /// What a test compares of an entry: action, table, entity.
    package struct Summary: Hashable, CustomStringConvertible {
        package let action: AuditAction
        package let table: VaultTable?
        package let id: UUID?
        package init(action: AuditAction, table: VaultTable?, id: UUID?) {
            self.action = action
            self.table = table
            self.id = id
        }

        package var description: String { "\(action) \(table?.rawValue ?? "-")" }
    }

    package static func summaries(_ entries: [AuditEntry]) -> [Summary] {
        entries.map { Summary(action: $0.action, table: $0.table, id: $0.entityID) }
    }

    /// Every entry of the trail.
    package static func entries(_ vault: Vault) async throws -> [AuditEntry] {
        try await vault.audit.entries(limit: 100_000)
    }

    /// The entries after `sequence`.
    package static func entries(_ vault: Vault, after sequence: Int64) async throws -> [AuditEntry] {
        try await vault.audit.entries(limit: 100_000, after: sequence)
    }

    /// A second connection to the vault's database with its key: what an attacker
    /// holding the database key (not the vault key) can do with raw SQL. The triggers
    /// that keep the trail append-only are dropped first, as such an attacker would.
    package static func tamper(_ vault: Vault, _ sql: String, _ arguments: [VaultValue] = [],
                               password: Password? = nil) async throws {
        let key = try VaultFixtures.databaseKey(in: vault.layout.folder, password: try password ?? Password("probe"))
        defer { key.wipe() }
        let pool = try await VaultDatabase.open(at: vault.layout.database, key: key, mode: .openExisting,
                                                  migrator: MedVaultSchema.migrator)
        do {
            try await pool.write { db in
                try db.executeScript("""
                    DROP TRIGGER IF EXISTS medvault_audit_no_update; DROP TRIGGER IF EXISTS medvault_audit_no_delete;
                    """)
                try db.execute(sql, arguments)
            }
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }
}
