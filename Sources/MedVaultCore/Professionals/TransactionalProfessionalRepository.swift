import Foundation

/// The vault owner's profile inside a unit of work (``VaultTransaction/professional``):
/// the synchronous mirror of ``ProfessionalRepository``, with the same rules, results
/// and errors, in the unit's transaction.
public protocol TransactionalProfessionalRepository {
    /// The vault's professional, as ``ProfessionalRepository/get()``.
    func get() throws -> Professional?

    /// Stores the profile, as ``ProfessionalRepository/save(_:)``.
    @discardableResult
    func save(_ professional: Professional) throws -> Professional
}
