import MedVaultCore

/// How SQLCipher encrypts the database the keyring belongs to, recorded so the vault stays
/// readable by later SQLCipher versions.
///
/// The defaults are SQLCipher 3's settings with a 4096-byte page: AES-256-CBC, HMAC-SHA1 per
/// page, PBKDF2-HMAC-SHA1, 64 000 passphrase iterations, 2 HMAC-key iterations. MedVault keys
/// every connection with a **raw** 256-bit key (`x'…'`), so SQLCipher skips its passphrase KDF
/// and ``kdfIterations`` does not change the encryption key; ``fastKDFIterations`` (with the
/// page-1 salt) still derives the per-page HMAC key, so it must match or nothing decrypts.
///
/// MedVault applies every setting on every connection right after keying, before the first
/// read, and ``validate()`` admits only values it can put into `PRAGMA` text safely.
///
/// Opening with **SQLCipher 3** (Debian's 3.4.1), after `PRAGMA key = "x'…'"`:
///
/// ```sql
/// PRAGMA cipher = 'aes-256-cbc';
/// PRAGMA cipher_use_hmac = ON;
/// PRAGMA cipher_page_size = 4096;
/// PRAGMA kdf_iter = 64000;
/// PRAGMA fast_kdf_iter = 2;
/// ```
///
/// Opening with **SQLCipher 4** (Homebrew, Apple platforms, PyPI's `sqlcipher3-binary`), after
/// `PRAGMA key = "x'…'"`; `cipher_compatibility` comes first because it resets the others
/// (to a 1024-byte page among them), and SQLCipher 4 has no `PRAGMA cipher` (AES-256-CBC is its
/// only cipher):
///
/// ```sql
/// PRAGMA cipher_compatibility = 3;
/// PRAGMA cipher_page_size = 4096;
/// PRAGMA cipher_use_hmac = ON;
/// PRAGMA cipher_hmac_algorithm = HMAC_SHA1;
/// PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;
/// PRAGMA kdf_iter = 64000;
/// PRAGMA fast_kdf_iter = 2;          -- "deprecated" in SQLCipher 4, still honoured
/// ```
///
/// With settings other than ``medVaultDefault``, use their values in the same statements.
/// `docs/inspecting-a-vault.md` has the full recipe, for the shell and for Python.
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

    /// The cipher names MedVault accepts: AES-256-CBC, the only cipher SQLCipher 4 offers.
    public static let knownCiphers: Set<String> = ["aes-256-cbc"]
    /// The page HMAC algorithms SQLCipher 4 names (SQLCipher 3 knows only `HMAC_SHA1`).
    public static let knownHMACAlgorithms: Set<String> = ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"]
    /// The passphrase KDF algorithms SQLCipher 4 names (SQLCipher 3 knows only `PBKDF2_HMAC_SHA1`).
    public static let knownKDFAlgorithms: Set<String> = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"]

    /// Checks that the settings can be stored and used.
    ///
    /// The values go into `PRAGMA` text on every connection, so only known names and bounded
    /// numbers pass: the cipher must be one of ``knownCiphers`` (exact spelling), the algorithms
    /// one of ``knownHMACAlgorithms`` and ``knownKDFAlgorithms``, the page size a power of two in
    /// 512...65536, ``kdfIterations`` in 1...10 000 000, ``fastKDFIterations`` in 1...100 000 and
    /// ``compatibility`` 3 or 4 (the SQLCipher major versions MedVault configures).
    ///
    /// - Throws: `MedVaultError.Code.invalidArgument` (field `"cipherSettings"`).
    public func validate() throws {
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "page size must be a power of two in 512...65536")
        }
        guard Self.knownCiphers.contains(cipher) else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "the cipher must be aes-256-cbc")
        }
        guard Self.knownHMACAlgorithms.contains(hmacAlgorithm) else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "the HMAC algorithm must be HMAC_SHA1, HMAC_SHA256 or HMAC_SHA512")
        }
        guard Self.knownKDFAlgorithms.contains(kdfAlgorithm) else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings",
                                reason: "the KDF algorithm must be PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512")
        }
        guard (1...10_000_000).contains(kdfIterations), (1...100_000).contains(fastKDFIterations) else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings",
                                reason: "kdf_iter must be in 1...10000000 and fast_kdf_iter in 1...100000")
        }
        guard compatibility == 3 || compatibility == 4 else {
            throw MedVaultError(.invalidArgument, field: "cipherSettings", reason: "compatibility must be 3 or 4")
        }
    }
}
