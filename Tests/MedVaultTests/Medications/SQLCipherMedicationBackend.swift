import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport

extension MedicationBackend {
    /// ``SQLCipherMedicationStore`` over a fresh encrypted database in a temporary
    /// folder, removed when the fixture is released.
    static let sqlcipher = MedicationBackend(name: "SQLCipher") { clock in
        let database = try await TemporaryMedicationDatabase(clock: clock)
        let store = database.store
        return MedicationFixture(
            store: store,
            registerPatient: { try await database.registerPatient() },
            failNextWrite: { point in store._failNextWrite(at: point) }
        )
    }
}

/// An encrypted database with the full MedVault schema and a medication store over it.
///
/// The folder is removed when the last reference goes away (the fixture's closures
/// hold one); the pool's connections close as it is released.
final class TemporaryMedicationDatabase: Sendable {
    let directory: TemporaryDirectory
    let pool: VaultDatabase
    let store: SQLCipherMedicationStore

    init(clock: RecordClock) async throws {
        directory = try TemporaryDirectory()
        do {
            pool = try await VaultDatabase.open(
                at: directory.file("medications.sqlite"), key: SecureBytes.random(count: 32),
                mode: .createIfMissing, migrator: MedVaultSchema.migrator)
        } catch {
            directory.remove()
            throw error
        }
        store = SQLCipherMedicationStore(pool: pool, clock: clock, faults: MedicationFaultSwitch())
    }

    deinit {
        directory.remove()
    }

    /// Inserts a minimal valid patient and returns its identifier.
    func registerPatient(id: UUID = UUID()) async throws -> UUID {
        try await pool.write { db in try Self.insertPatient(id: id, db) }
        return id
    }

    /// The one place that knows the `patient` table's required columns: adjust it when
    /// the clinical schema gains NOT NULL columns.
    static func insertPatient(id: UUID, _ db: DatabaseConnection) throws {
        try db.execute("""
            INSERT INTO patient (id, first_name, last_name, sort_key, date_of_birth, created_at, updated_at, version)
            VALUES (?, 'Test', 'Patient', 'patient test', '1980-01-01', 0, 0, 1)
            """, [id.vaultValue])
    }

    /// Runs raw SQL reads, bypassing the store.
    func count(_ sql: String, _ arguments: [VaultValue] = []) async throws -> Int64 {
        try await pool.read { db in try db.fetchOne(sql, arguments) { $0.int64(at: 0) } ?? 0 }
    }
}
