import MedVaultKeys

/// The cipher settings a connection really uses, read back with SQLCipher's pragmas, and
/// their comparison with the ones the keyring records.
///
/// SQLCipher answers an unknown or unsupported pragma with nothing rather than an error,
/// so a setting that was silently ignored shows up here as a value that differs from the
/// keyring's or as one that could not be read at all.
struct CipherSettingsReadBack: Sendable, Hashable {
    /// The SQLCipher major version the values were read from.
    var majorVersion: Int
    /// `PRAGMA cipher`, e.g. `AES-256-CBC`.
    var cipher: String?
    /// `PRAGMA cipher_page_size`.
    var pageSize: Int?
    /// `PRAGMA cipher_use_hmac`.
    var usesHMAC: Bool?
    /// `PRAGMA kdf_iter`.
    var kdfIterations: Int?
    /// `PRAGMA fast_kdf_iter`.
    var fastKDFIterations: Int?
    /// `PRAGMA cipher_hmac_algorithm`; SQLCipher 4 only (3.x has HMAC-SHA1 built in).
    var hmacAlgorithm: String?
    /// `PRAGMA cipher_kdf_algorithm`; SQLCipher 4 only (3.x has PBKDF2-HMAC-SHA1 built in).
    var kdfAlgorithm: String?

    /// One line per setting that differs from `expected` or could not be read back.
    /// The lines name settings and numbers only.
    func problems(against expected: CipherSettings) -> [String] {
        var problems: [String] = []
        func compare(_ name: String, _ actual: String?, _ wanted: String) {
            guard let actual else {
                problems.append("cipher setting \(name) could not be read back (expected \(wanted))")
                return
            }
            if actual.lowercased() != wanted.lowercased() {
                problems.append("cipher setting \(name) is \(actual), the keyring records \(wanted)")
            }
        }
        compare("cipher", cipher, expected.cipher)
        compare("cipher_page_size", pageSize.map(String.init), String(expected.pageSize))
        compare("cipher_use_hmac", usesHMAC.map { $0 ? "ON" : "OFF" }, expected.usesHMAC ? "ON" : "OFF")
        compare("kdf_iter", kdfIterations.map(String.init), String(expected.kdfIterations))
        compare("fast_kdf_iter", fastKDFIterations.map(String.init), String(expected.fastKDFIterations))
        if majorVersion >= 4 {
            compare("cipher_hmac_algorithm", hmacAlgorithm, expected.hmacAlgorithm)
            compare("cipher_kdf_algorithm", kdfAlgorithm, expected.kdfAlgorithm)
        }
        return problems
    }

    /// A one-line summary for a verification report, e.g.
    /// `cipher AES-256-CBC, page 4096, HMAC on, kdf_iter 64000, fast_kdf_iter 2`.
    var summary: String {
        func show(_ value: (some CustomStringConvertible)?) -> String { value.map(\.description) ?? "?" }
        var parts = [
            "cipher \(show(cipher))", "page \(show(pageSize))",
            "HMAC \(usesHMAC.map { $0 ? "on" : "off" } ?? "?")",
            "kdf_iter \(show(kdfIterations))", "fast_kdf_iter \(show(fastKDFIterations))",
        ]
        if majorVersion >= 4 { parts += ["\(show(hmacAlgorithm))", "\(show(kdfAlgorithm))"] }
        return parts.joined(separator: ", ")
    }
}
