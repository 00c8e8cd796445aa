import Foundation

/// How a save of the vault's professional is stamped over what is stored, written once
/// for every backend.
///
/// A vault has one professional. The first save creates it (version 1); later saves
/// must carry the stored one's identifier and version, keep its creation time and bump
/// the version. Both the in-memory store and the SQLCipher repository call this inside
/// their own transaction (an actor call, a write transaction).
package enum ProfessionalSaveRule {
    /// The value to store when `professional` (already validated) is saved over `stored`.
    ///
    /// - Throws: `duplicate` (field `id`) when the vault already has another
    ///   professional; `conflict` when `professional.version` is not the stored one's.
    package static func saved(_ professional: Professional, over stored: Professional?, now: Date) throws -> Professional {
        var value = professional
        if let stored {
            guard stored.id == value.id else {
                throw MedVaultError(.duplicate, field: "id", reason: "the vault already has a professional")
            }
            guard stored.version == value.version else { throw MedVaultError.recordConflict }
            value.createdAt = stored.createdAt
            value.version = stored.version + 1
        } else {
            value.createdAt = now
            value.version = 1
        }
        value.updatedAt = now
        return value
    }
}
