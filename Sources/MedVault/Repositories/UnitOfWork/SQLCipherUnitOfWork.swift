import CSQLCipher
import Foundation
import MedVaultCore

/// One unit of work on the writer connection (`Vault.write(_:)`): the connection in
/// its write transaction, the clock, and the scope that ends with the closure.
///
/// Each write runs in a savepoint of its own, so a failing step changes nothing,
/// exactly as in memory, even when the closure catches its error and goes on: a
/// batch half inserted before its fifth row failed does not stay half inserted.
///
/// Not `Sendable`: it lives on the thread running the closure, inside it.
final class SQLCipherUnitOfWork {
    let db: DatabaseConnection
    let clock: RecordClock
    let scope = TransactionScope()
    /// A step whose savepoint could not be rolled back: the transaction may hold part
    /// of it, so the unit must not commit.
    private var unsoundStep: (any Error)?

    init(db: DatabaseConnection, clock: RecordClock) {
        self.db = db
        self.clock = clock
    }

    /// The transaction value handed to the closure.
    var transaction: VaultTransaction {
        VaultTransaction(
            professional: SQLCipherTransactionalProfessionalRepository(unit: self),
            patients: SQLCipherTransactionalPatientRepository(unit: self),
            sessions: SQLCipherTransactionalClinicalSessionRepository(unit: self),
            diagnoses: SQLCipherTransactionalDiagnosisRepository(unit: self),
            medications: SQLCipherTransactionalMedicationStore(unit: self))
    }

    /// Runs a read step.
    func read<Value>(_ step: (DatabaseConnection) throws -> Value) throws -> Value {
        try checkUsable()
        return try step(db)
    }

    /// Runs a write step in a savepoint: on error, the step's changes are rolled back
    /// and the error rethrown; the unit's earlier steps stay.
    func write<Value>(_ step: (DatabaseConnection) throws -> Value) throws -> Value {
        try checkUsable()
        try db.execute("SAVEPOINT medvault_unit_step")
        let logged = db.changeLog.mark()
        do {
            let value = try step(db)
            try db.execute("RELEASE medvault_unit_step")
            return value
        } catch {
            do {
                try db.execute("ROLLBACK TO medvault_unit_step")
                try db.execute("RELEASE medvault_unit_step")
                db.changeLog.restore(logged)
            } catch let rollbackError {
                // An interrupt (cancellation) or I/O failure: the transaction is no
                // longer known to be whole. The unit will refuse to commit.
                unsoundStep = rollbackError
            }
            throw error
        }
    }

    /// The error of a unit whose transaction SQLite rolled back on its own (it does
    /// after an interrupt, and may after `SQLITE_FULL`, `SQLITE_IOERR` or
    /// `SQLITE_NOMEM`): nothing of the unit was written.
    static let transactionLostError = MedVaultError(
        .storage, reason: "the database rolled the unit of work back; nothing of it was written")

    /// Throws when the unit ended, a step left it unsound, or its transaction is gone.
    ///
    /// The last check matters: with no transaction open, a step's `SAVEPOINT` would
    /// start one of its own and its `RELEASE` commit it, writing that step alone.
    private func checkUsable() throws {
        try scope.check()
        if let unsoundStep { throw unsoundStep }
        if sqlite3_get_autocommit(db.handle) != 0 { throw Self.transactionLostError }
    }

    /// Called after the closure returned, before the commit: throws (so the
    /// transaction rolls back) when a step left the unit unsound or its transaction is gone.
    func finish() throws {
        scope.close()
        if let unsoundStep { throw unsoundStep }
        if sqlite3_get_autocommit(db.handle) != 0 { throw Self.transactionLostError }
    }
}
