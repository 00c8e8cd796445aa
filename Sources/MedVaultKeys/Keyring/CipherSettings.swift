import MedVaultCore

/// How SQLCipher encrypts the database the keyring belongs to, recorded so the vault stays
/// readable by later SQLCipher versions.
///
/// The defaults are SQLCipher 3's settings with a 4096-byte page: AES-256-CBC, HMAC-SHA1 per
/// page, PBKDF2-HMAC-SHA1. MedVault keys every connection with a **raw** 256-bit key
/// (`x'…'`), so SQLCipher skips its passphrase KDF and ``kdfIterations`` does not matter
/// for the encryption key; ``fastKDFIterations`` still derives the per-page HMAC key.
///
/// Opening with SQLCipher 4 or later: run `PRAGMA cipher_compatibility = 3` (``compatibility``)
/// and then `PRAGMA cipher_page_size = 4096` right after keying, before any other statement.
/// With SQLCipher 3.4 (Debian's), run `PRAGMA cipher_page_size`, `PRAGMA cipher_use_hmac`,
/// `PRAGMA kdf_iter` and `PRAGMA fast_kdf_iter` with these values.
public struct CipherSettings: Sendable, Hashable {
    /// SQLCipher's cipher name.
    public var cipher: String
    /// Page size in bytes (a power of two, 512...65536).
    public var pageSize: UInt32
    /// Whether each page carries an HMAC.
    public var usesHMAC: Bool
    /// The page HMAC algorithm, in SQLCipher 4's spelling.
    public var hmacAlgorithm: String
    /// The passphrase KDF algorithm, in SQLCipher 4's spelling (unused with a raw key).
    public var kdfAlgorithm: String
    /// PBKDF2 iterations for a passphrase (unused with a raw key).
    public var kdfIterations: UInt32
    /// PBKDF2 iterations that derive the HMAC key from the encryption key.
    public var fastKDFIterations: UInt32
    /// The SQLCipher major version whose defaults these are (`PRAGMA cipher_compatibility`).
    public var compatibility: UInt8

    /// MedVault's settings: SQLCipher 3 defaults with 4096-byte pages.
    public static let medVaultDefault = CipherSettings(
        cipher: "aes-256-cbc", pageSize: 4096, usesHMAC: true, hmacAlgorithm: "HMAC_SHA1",
        kdfAlgorithm: "PBKDF2_HMAC_SHA1", kdfIterations: 64_000, fastKDFIterations: 2, compatibility: 3
    )

    /// Creates settings; see ``medVaultDefault`` for MedVault's.
    public init(
        cipher: String, pageSize: UInt32, usesHMAC: Bool, hmacAlgorithm: String,
        kdfAlgorithm: String, kdfIterations: UInt32, fastKDFIterations: UInt32, compatibility: UInt8
    ) {
        self.cipher = cipher
        self.pageSize = pageSize
        self.usesHMAC = usesHMAC
        self.hmacAlgorithm = hmacAlgorithm
        self.kdfAlgorithm = kdfAlgorithm
        self.kdfIterations = kdfIterations
        self.fastKDFIterations = fastKDFIterations
        self.compatibility = compatibility
    }

    /// Checks that the settings can be stored and used.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` (field `"cipherSettings"`).
    public func validate() throws {
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "page size must be a power of two in 512...65536")
        }
        for name in [cipher, hmacAlgorithm, kdfAlgorithm] {
            guard !name.isEmpty, name.utf8.count <= 64,
                  name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "'") }) else {
                throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "algorithm names must be short printable ASCII")
            }
        }
        guard kdfIterations >= 1, fastKDFIterations >= 1, compatibility >= 1 else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "iteration counts and compatibility must be positive")
        }
    }
}
