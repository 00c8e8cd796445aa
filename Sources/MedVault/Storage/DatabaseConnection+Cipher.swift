import MedVaultCore
import MedVaultKeys

extension DatabaseConnection {
    /// Pins `settings` on the database `schema` of this keyed connection and checks, by
    /// reading each setting back, that SQLCipher took them. Run it after keying and before
    /// the first read: the settings decide how the first page is decrypted.
    ///
    /// - Throws: `invalidArgument` for invalid settings; `encryptionUnavailable` for a
    ///   SQLCipher major version other than 3 or 4, settings it cannot honour, or a
    ///   setting that did not take.
    func applyCipherSettings(_ settings: CipherSettings, schema: String = "main") throws {
        let major = try CipherPragmas.majorVersion(of: cipherVersion())
        // Not cached: each runs once per connection. Rows some of them answer with
        // (SQLCipher's deprecation notices) are ignored.
        let statements = try CipherPragmas.statements(for: settings, majorVersion: major, schema: schema)
        try executeScript(statements.joined(separator: ";\n") + ";")
        let problems = try readCipherSettings(schema: schema).problems(against: settings)
        guard problems.isEmpty else {
            throw MedVaultError(.encryptionUnavailable,
                                reason: "SQLCipher did not take the keyring's cipher settings: " + problems.joined(separator: "; "))
        }
    }

    /// The cipher settings of the database `schema`, read back from SQLCipher.
    func readCipherSettings(schema: String = "main") throws -> CipherSettingsReadBack {
        let major = try CipherPragmas.majorVersion(of: cipherVersion())
        func text(_ pragma: String) throws -> String? {
            try fetchOne("PRAGMA \(schema).\(pragma)") { row in row.text(at: 0) }
        }
        func number(_ pragma: String) throws -> Int? { try text(pragma).flatMap { Int($0) } }
        return CipherSettingsReadBack(
            majorVersion: major,
            cipher: try text("cipher"),
            pageSize: try number("cipher_page_size"),
            usesHMAC: try number("cipher_use_hmac").map { $0 != 0 },
            kdfIterations: try number("kdf_iter"),
            fastKDFIterations: try number("fast_kdf_iter"),
            hmacAlgorithm: major >= 4 ? try text("cipher_hmac_algorithm") : nil,
            kdfAlgorithm: major >= 4 ? try text("cipher_kdf_algorithm") : nil
        )
    }
}
