import Foundation
import MedVaultCore

extension Vault: VaultWriter {
    /// Runs `body` as one unit of work: one write transaction on the vault's writer,
    /// committed durably once when `body` returns, rolled back entirely otherwise.
    ///
    /// For example, a patient, a session and its diagnosis in one commit (one fsync):
    ///
    /// ```swift
    /// let session = try await vault.write { tx in
    ///     let patient = try tx.patients.create(Patient(firstName: "Ana", lastName: "Ruiz",
    ///                                                  dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
    ///     let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: .now))
    ///     try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, diagnosedAt: .now))
    ///     return session
    /// }
    /// ```
    ///
    /// The unit runs as ``VaultDatabase/write(duration:_:)`` runs a transaction (on the
    /// writer's own thread): other writes wait for it, reads outside it do not see its
    /// writes before the commit, cancelling the task rolls it back (a running
    /// statement is interrupted), and ``lock()`` waits for it to end before closing
    /// the database.
    ///
    /// A repository call that throws leaves nothing of itself, even when `body` catches
    /// its error and goes on:
    ///
    /// * Batch creates of patients, sessions and diagnoses (and their one-record
    ///   forms) check every record — validation, parent, duplicate id — before they
    ///   write the first row, so a refused call wrote nothing; they run without a
    ///   savepoint, which keeps a unit of large batches as fast as separate calls.
    ///   Should one fail after writing part of itself anyway (a full disk, an I/O
    ///   error), the unit is *poisoned*: every later call in `body` throws that error,
    ///   and so does this method once `body` returns, with nothing of the unit written.
    /// * Every other call runs in a savepoint, rolled back when the call throws.
    ///
    /// Attachments are not part of a unit of work (their content streams over several
    /// transactions): add them with ``attachments`` after the unit commits.
    ///
    /// - Parameter body: Writes and reads through the transaction's repositories, on
    ///   the writer connection. It must not store the transaction: once `body` returns,
    ///   its methods throw `MedVaultError.Code.invalidArgument` and touch nothing.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; `MedVaultError.Code.cancelled` when the task was
    ///   cancelled; `MedVaultError.Code.locked` when the vault is locked; a storage error.
    public func write<Value: Sendable>(
        _ body: @escaping @Sendable (VaultTransaction) throws -> Value
    ) async throws -> Value {
        let clock = options.clock
        return try await database.write(duration: .long) { db in
            let unit = SQLCipherUnitOfWork(db: db, clock: clock)
            let value: Value
            do {
                value = try body(unit.transaction)
            } catch {
                unit.scope.close()
                throw error
            }
            try unit.finish()
            return value
        }
    }
}
