import Foundation

/// A vault that writes several records, of any repositories, in one unit of work:
/// one transaction, one commit, all or nothing. `Vault` and ``InMemoryVault`` conform.
///
/// For example:
///
/// ```swift
/// func admit(_ patient: Patient, on date: Date, in vault: some VaultWriter) async throws -> ClinicalSession {
///     try await vault.write { tx in
///         let stored = try tx.patients.create(patient)
///         return try tx.sessions.create(ClinicalSession(patientID: stored.id, date: date))
///     }
/// }
/// ```
public protocol VaultWriter: Sendable {
    /// Runs `body` in one write transaction and commits it when `body` returns.
    ///
    /// Everything `body` wrote is rolled back, and nothing of it remains, when `body`
    /// throws, when the task is cancelled (before the commit), or when storage fails.
    /// A repository call that throws inside `body` leaves nothing of itself, so `body`
    /// may catch its error and go on — except after a storage failure in the middle of
    /// a call (a full disk): then every later call, and this method, throw that error,
    /// and nothing of the unit is written.
    /// `body` is synchronous because it holds the vault's only writer: other writes
    /// wait for it, and reads outside it see none of its writes until it commits.
    /// Keep it short; do not wait for anything inside it.
    ///
    /// - Parameter body: Writes and reads through the ``VaultTransaction``'s
    ///   repositories. The transaction must not be stored: once `body` returns, its
    ///   methods throw ``MedVaultError/Code/invalidArgument``.
    /// - Returns: What `body` returned: typically the stored records, with their
    ///   versions and timestamps, exactly as the async repositories return them.
    /// - Throws: What `body` threw; ``MedVaultError/Code/cancelled`` when the task was
    ///   cancelled; ``MedVaultError/Code/locked`` when the vault is locked; a storage error.
    func write<Value: Sendable>(_ body: @escaping @Sendable (VaultTransaction) throws -> Value) async throws -> Value
}
