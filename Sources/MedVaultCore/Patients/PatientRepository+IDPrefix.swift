import Foundation

extension PatientRepository {
    /// The patient whose identifier is `text`: a whole UUID, or the start of one (at
    /// least 4 hexadecimal digits, hyphens allowed, any case) that only one patient's
    /// identifier begins with. Active and inactive patients are considered.
    ///
    /// Tools that show shortened identifiers (`medvault patients list` prints 8
    /// characters) accept them back with this.
    ///
    /// For example:
    ///
    /// ```swift
    /// let patient = try await vault.patients.get(idOrPrefix: "3f2a9c1e")
    /// ```
    ///
    /// - Parameter text: A UUID or a unique prefix of one.
    /// - Returns: The patient.
    /// - Throws: ``MedVaultError/Code/validation`` (field `id`) when `text` is neither a
    ///   UUID nor a prefix of at least 4 hexadecimal digits;
    ///   ``MedVaultError/Code/notFound`` when no patient matches;
    ///   ``MedVaultError/Code/invalidArgument`` (field `id`) when several do.
    public func get(idOrPrefix text: String) async throws -> Patient {
        if let id = UUID(uuidString: text) {
            return try await get(id)
        }
        let prefix = text.uppercased()
        let hexDigits = prefix.filter { $0 != "-" }
        guard hexDigits.count >= 4, prefix.count < 36,
              prefix.allSatisfy({ $0 == "-" || ($0.isASCII && $0.isHexDigit) })
        else {
            throw MedVaultError.validation("id", "is neither a patient identifier nor a prefix of at least 4 hexadecimal digits")
        }
        var matches: [Patient] = []
        var cursor: PatientCursor?
        repeat {
            let page = try await list(filter: .all, after: cursor, limit: 500)
            matches += page.patients.filter { $0.id.uuidString.hasPrefix(prefix) }
            cursor = page.nextCursor
        } while cursor != nil && matches.count < 2
        guard let match = matches.first else {
            throw MedVaultError(.notFound, field: "id", reason: "no patient has this identifier")
        }
        guard matches.count == 1 else {
            throw MedVaultError(.invalidArgument, field: "id",
                                reason: "several patients' identifiers begin with this prefix; give more characters")
        }
        return match
    }
}
