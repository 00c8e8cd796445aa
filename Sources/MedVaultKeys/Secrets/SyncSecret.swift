import MedVaultCore

/// A vault's sync secret: 128 random bits that stay on the owner's devices and never
/// reach the sync server, like 1Password's Secret Key.
///
/// The keyring a device publishes to the server is sealed under a key derived from it
/// (``SealedKeyring``), so the server, a thief of its database or backups, and a holder
/// of a device token get bytes they cannot test a password guess against: a guess needs
/// this secret too. A new device joins with it and the password (or the recovery key);
/// the app shows it once the vault is registered, to be written down with the recovery
/// key as the vault's recovery kit.
///
/// It is written in Crockford base32 as 4 groups of 8 characters, for example
/// `7KQ2M9DH-3XJ4TB0R-…`: 128 secret bits and a 32-bit checksum (the first four bytes of
/// SHA-256 over a label and the secret), 160 bits = 32 characters. Reading it back
/// forgives case, spaces and hyphens, reads `I`/`L` as `1` and `O` as `0`, and catches a
/// mistyped character with the checksum: `invalidArgument` with `field: "syncSecret"`.
///
/// ```swift
/// let secret = try await engine.syncSecret()      // after register()
/// print(secret.formatted)                          // for the recovery kit
/// let typed = try SyncSecret(parsing: "7kq2m9dh 3xj4tb0r ...")
/// ```
public struct SyncSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret bytes (16).
    let bytes: SecureBytes

    /// Number of secret bytes.
    static let secretLength = 16
    /// Number of groups in ``formatted``.
    public static let groupCount = 4
    /// Characters per group in ``formatted``.
    public static let groupLength = 8

    /// 16 secret bytes and a 4-byte checksum: 160 bits, 32 symbols.
    private static let text = CheckedBase32(
        secretLength: secretLength, checksumLength: 4, groupCount: groupCount, groupLength: groupLength,
        checksumLabel: "MedVault sync secret checksum v1", field: "syncSecret")

    /// A new random secret from the system's secure random generator.
    public static func generate() -> SyncSecret {
        SyncSecret(bytes: SecureBytes.random(count: secretLength))
    }

    init(bytes: SecureBytes) {
        self.bytes = bytes
    }

    /// The secret held in `bytes` (16), copied straight into secure memory; for the sync
    /// engine, which keeps it in the vault's encrypted database.
    ///
    /// - Throws: `corrupted` when `bytes` is not 16 bytes long.
    package init(storedBytes bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count == Self.secretLength else {
            throw MedVaultError(.corrupted, reason: "the stored sync secret has the wrong length")
        }
        self.bytes = SecureBytes(copying: bytes)
    }

    /// The secret's bytes, for the sync engine to store in the vault's encrypted database.
    ///
    /// - Throws: `locked` after the secret was wiped.
    package func storedBytes() throws -> [UInt8] {
        try bytes.withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the secret's bytes, for the sync engine to copy into secure memory.
    ///
    /// - Throws: `locked` after the secret was wiped; what `body` throws.
    package func withStoredBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes(body)
    }

    /// Parses a secret as a person typed it (the symbols and decoded bytes are wiped when
    /// this returns; `text` itself is the caller's).
    ///
    /// - Parameter text: The 32 characters, in any case, with any spaces or hyphens.
    /// - Throws: `MedVaultError.Code.invalidArgument` with field `"syncSecret"`: "invalid
    ///   character", "wrong length" or "checksum mismatch".
    public init(parsing text: String) throws {
        self.bytes = try Self.text.parse(text.utf8)
    }

    /// The secret as 4 groups of 8 Crockford base32 characters joined by hyphens; an
    /// empty string once wiped. The returned `String` cannot be wiped: show it and let it go.
    public var formatted: String { Self.text.format(bytes) }

    /// Overwrites the secret's bytes; it is unusable afterwards.
    public func wipe() { bytes.wipe() }

    /// Compares the secrets in constant time.
    public static func == (lhs: SyncSecret, rhs: SyncSecret) -> Bool { lhs.bytes == rhs.bytes }

    /// Never shows the secret.
    public var description: String { "SyncSecret(redacted)" }
    /// Never shows the secret.
    public var debugDescription: String { description }
}
