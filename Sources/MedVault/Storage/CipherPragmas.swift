import MedVaultCore
import MedVaultKeys

/// The `PRAGMA` statements that pin a keyring's `CipherSettings` on a connection, for the
/// SQLCipher major version in use.
///
/// SQLCipher 3 and 4 name the settings differently: 3.x takes `PRAGMA cipher` and has
/// HMAC-SHA1 and PBKDF2-HMAC-SHA1 built in; 4.x has no `PRAGMA cipher` (AES-256-CBC only),
/// names the algorithms (`cipher_hmac_algorithm`, `cipher_kdf_algorithm`) and starts from
/// `cipher_compatibility`, which resets every other setting and so comes first. Any other
/// major version is refused: its defaults and pragmas are unknown, and guessing would
/// write a database the keyring does not describe.
enum CipherPragmas {
    /// The SQLCipher major versions MedVault knows how to configure.
    static let supportedMajorVersions = 3...4

    /// The major version in a `PRAGMA cipher_version` answer such as `3.4.1` or
    /// `4.12.0 community`.
    ///
    /// - Throws: `encryptionUnavailable` for an unreadable version or one other than 3 or 4.
    static func majorVersion(of version: String) throws -> Int {
        let digits = version.prefix { $0.isASCII && $0.isNumber }
        guard let major = Int(digits), digits.count <= 4 else {
            throw MedVaultError(.encryptionUnavailable,
                                reason: "the SQLCipher version could not be read; refusing to guess its cipher settings")
        }
        guard supportedMajorVersions.contains(major) else {
            throw MedVaultError(.encryptionUnavailable,
                                reason: "SQLCipher \(major).x is not supported: MedVault knows the cipher settings of SQLCipher 3 and 4 only")
        }
        return major
    }

    /// The statements that apply `settings` to the database `schema` (`main`, or an
    /// attached one), to run right after keying and before the first read.
    ///
    /// - Throws: `invalidArgument` for settings that fail `CipherSettings.validate()`;
    ///   `encryptionUnavailable` for an unsupported major version, or settings this major
    ///   version cannot honour (SQLCipher 3 has only the SHA-1 algorithms).
    static func statements(for settings: CipherSettings, majorVersion: Int, schema: String = "main") throws -> [String] {
        // Every value below is interpolated into SQL text: only validated values pass.
        try settings.validate()
        guard schema.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }), !schema.isEmpty else {
            throw MedVaultError(.invalidArgument, reason: "a schema name must be lowercase letters")
        }
        let hmac = settings.usesHMAC ? "ON" : "OFF"
        switch majorVersion {
        case 3:
            guard settings.hmacAlgorithm == "HMAC_SHA1", settings.kdfAlgorithm == "PBKDF2_HMAC_SHA1" else {
                throw MedVaultError(.encryptionUnavailable,
                                    reason: "these cipher settings need SQLCipher 4; SQLCipher 3 has only HMAC_SHA1 and PBKDF2_HMAC_SHA1")
            }
            // The cipher first: it sets the key, IV and reserve sizes the others build on.
            return [
                "PRAGMA \(schema).cipher = '\(settings.cipher)'",
                "PRAGMA \(schema).cipher_use_hmac = \(hmac)",
                "PRAGMA \(schema).cipher_page_size = \(settings.pageSize)",
                "PRAGMA \(schema).kdf_iter = \(settings.kdfIterations)",
                "PRAGMA \(schema).fast_kdf_iter = \(settings.fastKDFIterations)",
            ]
        case 4:
            // No `PRAGMA cipher` in 4.x: validate() admits only its one cipher, and the
            // read-back check confirms it. `fast_kdf_iter` is "deprecated" but honoured.
            return [
                "PRAGMA \(schema).cipher_compatibility = \(settings.compatibility)",
                "PRAGMA \(schema).cipher_page_size = \(settings.pageSize)",
                "PRAGMA \(schema).cipher_use_hmac = \(hmac)",
                "PRAGMA \(schema).cipher_hmac_algorithm = \(settings.hmacAlgorithm)",
                "PRAGMA \(schema).cipher_kdf_algorithm = \(settings.kdfAlgorithm)",
                "PRAGMA \(schema).kdf_iter = \(settings.kdfIterations)",
                "PRAGMA \(schema).fast_kdf_iter = \(settings.fastKDFIterations)",
            ]
        default:
            throw MedVaultError(.encryptionUnavailable,
                                reason: "SQLCipher \(majorVersion).x is not supported: MedVault knows the cipher settings of SQLCipher 3 and 4 only")
        }
    }
}
