import Foundation
import GRDB
import MedVault

// Every name below exists in one library only, or is spelled so that it cannot be
// ambiguous: if MedVault ever exports a GRDB name again, this stops compiling.

/// GRDB's types, unqualified.
func grdbSide() throws -> (DatabaseQueue, DatabaseValue, Row?) {
    let queue = try DatabaseQueue()
    let value: DatabaseValue = UUID().databaseValue
    let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT 1 AS one") }
    return (queue, value, row)
}

/// MedVault's storage types, unqualified.
func medVaultSide(_ vault: Vault) async throws -> (VaultValue, Int) {
    let database: VaultDatabase = vault.database
    let value: VaultValue = UUID().vaultValue
    let count = try await database.read { db in
        try db.fetchOne("SELECT count(*) FROM patient") { (row: VaultRow) in Int(row.int64(at: 0)) } ?? 0
    }
    return (value, count)
}

/// MedVault's records and errors beside GRDB's.
func records() async throws -> Int {
    let vault = InMemoryVault()
    let patient = try await vault.patients.create(
        Patient(firstName: "Ana", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
    do {
        _ = try await vault.patients.get(UUID())
    } catch let error as MedVaultError where error.code == .notFound {
        _ = error.sqliteResultCode
    } catch let error as DatabaseError {
        _ = error.resultCode
    }
    return patient.version == 1 ? 1 : 0
}
