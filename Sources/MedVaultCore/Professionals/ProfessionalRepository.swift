/// Stores the vault owner's profile: one ``Professional`` per vault.
///
/// For example:
///
/// ```swift
/// var me = try await professionals.get() ?? Professional(fullName: "Ana Ruiz",
///                                                        licenseNumber: "M-1", specialty: "Psicología")
/// me.specialty = "Psicología clínica"
/// me = try await professionals.save(me)
/// ```
public protocol ProfessionalRepository: Sendable {
    /// The vault's professional, or `nil` before the first save.
    ///
    /// - Throws: A storage error.
    func get() async throws -> Professional?

    /// Stores the profile: creates it (version 1) when the vault has none, otherwise
    /// updates it (version + 1, `updatedAt` = now; `createdAt` is kept).
    ///
    /// - Parameter professional: The profile. On update, its `id` must be the stored
    ///   one's and its `version` the stored version.
    /// - Returns: The stored value.
    /// - Throws: ``MedVaultError/Code/validation`` (see ``Professional/validationErrors()``);
    ///   ``MedVaultError/Code/duplicate`` (field `id`) when the vault already has a
    ///   professional with another id; ``MedVaultError/Code/conflict`` on a stale version.
    ///   Nothing is written on error.
    @discardableResult
    func save(_ professional: Professional) async throws -> Professional
}
