import Foundation

extension InMemoryVault: VaultWriter {
    /// Runs `body` as one unit of work over every table of this vault, as
    /// `Vault.write(_:)` does over its database: all or nothing.
    ///
    /// `body` runs with the vault's tables to itself (other calls wait for it), and
    /// when it throws or the task is cancelled every table is put back as it was.
    /// Putting back costs nothing; the first write to a table in a unit copies that
    /// table once (its dictionaries are copy-on-write), which suits the tests and
    /// previews this vault is for.
    ///
    /// For example:
    ///
    /// ```swift
    /// let vault = InMemoryVault()
    /// let session = try await vault.write { tx in
    ///     let patient = try tx.patients.create(ana)
    ///     return try tx.sessions.create(ClinicalSession(patientID: patient.id, date: .now))
    /// }
    /// ```
    ///
    /// - Parameter body: Writes and reads through the transaction's repositories.
    ///   The transaction must not be stored: once `body` returns, its methods throw
    ///   ``MedVaultError/Code/invalidArgument``.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``MedVaultError/Code/cancelled``.
    public func write<Value: Sendable>(
        _ body: @escaping @Sendable (VaultTransaction) throws -> Value
    ) async throws -> Value {
        try await store.transaction(medications: medications.tables, body)
    }
}
