import CSQLCipher
import Foundation
import MedVaultCore

/// One unit of work on the writer connection (`Vault.write(_:)`): the connection in
/// its write transaction, the clock, and the scope that ends with the closure.
///
/// A failing step changes nothing, exactly as in memory, even when the closure
/// catches its error and goes on: a batch half inserted before its fifth row failed
/// does not stay half inserted. Two kinds of steps get there two ways:
///
/// * ``write(_:)`` runs the step in a savepoint and rolls it back on error.
/// * ``writeChecked(_:)`` runs without one: the step checks everything it can fail on
///   before its first row (batch creates: validation, parents, duplicate ids), so a
///   failed check wrote nothing. A savepoint makes SQLite copy every page the step
///   modifies for the first time into the statement journal, which SQLCipher
///   encrypts: a unit of three 1,000-row batches ran slower than three transactions.
///   Should the step still fail after writing part of itself (a full disk, an I/O
///   error), the unit is **poisoned**: every later step throws that error, and so
///   does the commit, so the transaction rolls back and nothing of the unit is written.
///
/// Not `Sendable`: it lives on the thread running the closure, inside it.
final class SQLCipherUnitOfWork {
    let db: DatabaseConnection
    let clock: RecordClock
    let scope = TransactionScope()
    /// A step whose savepoint could not be rolled back, or a checked step that failed
    /// after writing part of itself: the transaction may hold part of it, so the unit
    /// must not commit, and this error is what every later step and the commit throw.
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

    /// Runs a write step that checks everything it can fail on before its first
    /// change, without a savepoint.
    ///
    /// On error, `sqlite3_total_changes` tells what the step left: SQLite undoes a
    /// failed statement's own changes and counts only the rows of statements that
    /// completed (triggers included), so an unchanged count means the step wrote
    /// nothing and the unit goes on. A changed count poisons the unit (see the type's
    /// documentation). The error is rethrown either way.
    func writeChecked<Value>(_ step: (DatabaseConnection) throws -> Value) throws -> Value {
        try checkUsable()
        let logged = db.changeLog.mark()
        let changesBefore = medvault_sqlite3_total_changes(db.handle)
        do {
            return try step(db)
        } catch {
            if medvault_sqlite3_total_changes(db.handle) == changesBefore {
                db.changeLog.restore(logged)
            } else {
                unsoundStep = error
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
        if medvault_sqlite3_get_autocommit(db.handle) != 0 { throw Self.transactionLostError }
    }

    /// Called after the closure returned, before the commit: throws (so the
    /// transaction rolls back) when a step left the unit unsound or its transaction is gone.
    func finish() throws {
        scope.close()
        if let unsoundStep { throw unsoundStep }
        if medvault_sqlite3_get_autocommit(db.handle) != 0 { throw Self.transactionLostError }
    }
}
