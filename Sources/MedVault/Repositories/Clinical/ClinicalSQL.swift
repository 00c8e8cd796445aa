import Foundation
import MedVaultCore

/// Errors and small helpers shared by the SQLCipher clinical repositories.
///
/// The record errors come from the shared factories in MedVaultCore
/// (`MedVaultError.recordNotFound`…), as `InMemoryClinicalStore`'s do, so both
/// backends answer the same to the same input.
enum ClinicalSQL {
    static let conflict = MedVaultError.recordConflict

    static let duplicate = MedVaultError.duplicateRecord

    static let completedStatus = MedVaultError(
        .immutable, field: "status", reason: "a completed session is part of the medical record")

    static func notFound(_ field: String? = nil) -> MedVaultError {
        MedVaultError.recordNotFound(field)
    }

    /// SQLITE_CONSTRAINT_TRIGGER: the error of a `RAISE(ABORT, …)` in a trigger.
    static let constraintTrigger: Int32 = 19 | (7 << 8)

    static func checkLimit(_ limit: Int) throws {
        guard limit >= 1 else {
            throw MedVaultError(.invalidArgument, reason: "limit must be at least 1")
        }
    }

    /// `LIMIT limit + 1`, to know whether a page has a next one; `Int.max` (an app's "all
    /// of them") stays `Int64.max` instead of overflowing.
    static func limitAndOne(_ limit: Int) -> VaultValue {
        .integer(Int64(limit) < .max ? Int64(limit) + 1 : .max)
    }

    /// Maps the error of an INSERT to the repository's error: a unique-constraint
    /// violation is a duplicate id, and the `notFound` (trigger or foreign key) and
    /// trigger-raised `validation` errors concern the parent record, named `parentField`.
    ///
    /// Only codes and fixed texts are used: nothing of the row reaches the error.
    static func insertError(_ error: any Error, parentField: String) -> any Error {
        guard let error = error as? MedVaultError else { return error }
        switch error.code {
        case .duplicate:
            return duplicate
        case .notFound:
            return notFound(parentField)
        case .validation where error.sqliteCode == constraintTrigger:
            return MedVaultError(.validation, field: parentField, reason: error.reason)
        default:
            return error
        }
    }

    /// Runs `insert`, mapping its error with ``insertError(_:parentField:)``.
    static func inserting(parentField: String, _ insert: () throws -> Void) throws {
        do {
            try insert()
        } catch {
            throw insertError(error, parentField: parentField)
        }
    }

    /// Validates every input with `validate`, stopping at the first failure.
    ///
    /// Validation needs no storage, so it runs before the write transaction; but a
    /// batch must report the *first* failing input whatever its failure, as the
    /// in-memory store does. So the valid prefix is returned with the error of the
    /// first invalid input, and the writer checks that prefix against storage before
    /// throwing that error.
    static func validatePrefix<Input, Output>(
        _ inputs: [Input], _ validate: (Input) throws -> Output
    ) -> (valid: [Output], failure: (any Error)?) {
        var valid: [Output] = []
        valid.reserveCapacity(inputs.count)
        for input in inputs {
            do {
                valid.append(try validate(input))
            } catch {
                return (valid, error)
            }
        }
        return (valid, nil)
    }

    /// Creates a batch in one write transaction: validates every input first (outside
    /// the writer), inserts the valid prefix with `insert`, then reports the first
    /// invalid input's error, so that an earlier storage error wins, as in memory.
    ///
    /// Memory: the validated copy is the only state that grows with the batch, and it
    /// is the return value (`MemoryLayout<Record>.stride` per row: 18 MiB for 100,000
    /// diagnoses; the strings are shared with the inputs). Each row's statement
    /// arguments are built inside `insert` and freed after their row: building them all
    /// before the transaction added ≈0.5 KiB a row (a `[VaultValue]` and a `Data`
    /// per UUID), 50 MiB of W1's peak for 100,000 diagnoses.
    static func insertBatch<Input, Record: Sendable & ChangeLoggedRecord>(
        _ inputs: [Input], into pool: VaultDatabase,
        validate: (Input) throws -> Record,
        insert: @escaping @Sendable (DatabaseConnection, Record) throws -> Void
    ) async throws -> [Record] {
        let (valid, failure) = validatePrefix(inputs, validate)
        if valid.isEmpty, let failure { throw failure }
        return try await pool.write(duration: .long) { db in
            try writeBatch(valid, failure: failure, in: db, insert: insert)
        }
    }

    /// Creates a batch inside a unit of work (`SQLCipherUnitOfWork.writeChecked`),
    /// checking every input before the first row is written, as the in-memory store
    /// does: validation, then for each valid input in order `check` (its parent) and
    /// its id against `table` and the inputs before it (`duplicate`). The first
    /// failure is thrown with nothing written; then every row is inserted with
    /// `insert`, which must not check again, and logged.
    ///
    /// The errors and their order are those of ``insertBatch(_:into:validate:insert:)``
    /// (a row's parent before its id; an earlier row's storage error before a later
    /// row's validation error). Only a storage failure can stop the inserts now.
    static func insertCheckedBatch<Input, Record: ChangeLoggedRecord>(
        _ inputs: [Input], in db: DatabaseConnection, table: String,
        validate: (Input) throws -> Record,
        check: (DatabaseConnection, Record) throws -> Void,
        insert: (DatabaseConnection, Record) throws -> Void
    ) throws -> [Record] {
        let (valid, failure) = validatePrefix(inputs, validate)
        var seen = Set<UUID>()
        seen.reserveCapacity(valid.count)
        let exists = "SELECT 1 FROM \(table) WHERE id = ?"
        for record in valid {
            try check(db, record)
            guard seen.insert(record.id).inserted,
                  try db.fetchOne(exists, [record.id.vaultValue], { _ in true }) == nil
            else { throw duplicate }
        }
        if let failure { throw failure }
        return try writeBatch(valid, failure: nil, in: db, insert: insert)
    }

    /// Inserts the validated prefix of a batch and logs one `insert` entry per record
    /// (multi-row `INSERT`s), then throws the first invalid input's error, if any (the
    /// caller's transaction then rolls the prefix and its entries back).
    private static func writeBatch<Record: ChangeLoggedRecord>(
        _ valid: [Record], failure: (any Error)?, in db: DatabaseConnection,
        insert: (DatabaseConnection, Record) throws -> Void
    ) throws -> [Record] {
        for record in valid { try insert(db, record) }
        if let failure { throw failure }
        try db.changeLog.append(valid.map { $0.change(.insert) })
        return valid
    }
}
