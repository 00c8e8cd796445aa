import MedVaultCore

/// A random 256-bit recovery key, shown once to the user to write down.
///
/// It is written in Crockford base32 as 8 groups of 7 characters, for example
/// `7KQ2M9D-H3XJ4TB-…`: 256 key bits plus a 24-bit checksum (the first three bytes of
/// SHA-256 over a label and the key), 280 bits = 56 characters. Reading it back is
/// forgiving: case, spaces and hyphens do not matter, and `I`/`L` read as `1`, `O` as `0`.
/// A mistyped character is caught by the checksum in microseconds, before any key
/// derivation runs, and reported as `MedVaultError.Code.invalidArgument` with
/// `field: "recoveryKey"`, distinct from `MedVaultError.Code.wrongRecoveryKey`
/// (well-formed, but not this vault's).
///
/// With 256 bits of entropy the key needs no slow KDF: its slot derives the key-encryption
/// key with HKDF-SHA256.
///
/// For example:
///
/// ```swift
/// let key = RecoveryKey.generate()
/// print(key.formatted)                          // show once
/// let typed = try RecoveryKey(parsing: "7kq2m9d h3xj4tb ...")
/// ```
public struct RecoveryKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key bytes (32).
    let bytes: SecureBytes

    /// Number of key bytes.
    static let keyLength = 32
    /// Number of groups in ``formatted``.
    public static let groupCount = 8
    /// Characters per group in ``formatted``.
    public static let groupLength = 7

    /// 32 key bytes and a 3-byte checksum: 280 bits, 56 symbols.
    private static let text = CheckedBase32(
        secretLength: keyLength, checksumLength: 3, groupCount: groupCount, groupLength: groupLength,
        checksumLabel: "MedVault recovery key checksum v1", field: "recoveryKey")

    /// A new random recovery key from the system's secure random generator.
    public static func generate() -> RecoveryKey {
        RecoveryKey(bytes: SecureBytes.random(count: keyLength))
    }

    init(bytes: SecureBytes) {
        self.bytes = bytes
    }

    /// Parses a recovery key as a person typed it.
    ///
    /// The symbols and the decoded bytes are held only in ``SecureBytes`` buffers, wiped
    /// when this returns; `text` itself is the caller's (a `String` cannot be wiped).
    ///
    /// - Parameter text: The 56 characters, in any case, with any spaces or hyphens.
    /// - Throws: `MedVaultError.Code.invalidArgument` with field `"recoveryKey"`: "invalid
    ///   character", "wrong length" or "checksum mismatch".
    public init(parsing text: String) throws {
        try self.init(parsing: text.utf8)
    }

    /// Parses a recovery key from the UTF-8 bytes a person typed, without making a `String`
    /// (which could not be wiped); see ``init(parsing:)-(String)``.
    ///
    /// - Parameter text: The 56 characters as UTF-8, in any case, with any spaces or hyphens.
    ///   Wipe your own copy afterwards.
    /// - Throws: As ``init(parsing:)-(String)``.
    public init<Bytes: Collection>(parsing text: Bytes) throws where Bytes.Element == UInt8 {
        self.bytes = try Self.text.parse(text)
    }

    /// The key as 8 groups of 7 Crockford base32 characters joined by hyphens.
    ///
    /// The key, its checksum and its symbols are assembled in ``SecureBytes`` buffers;
    /// only the returned `String` holds the text, and it cannot be wiped: show it and let
    /// it go. Reading a wiped key (the vault was locked) yields an empty string.
    public var formatted: String { Self.text.format(bytes) }

    /// Compares the keys in constant time.
    public static func == (lhs: RecoveryKey, rhs: RecoveryKey) -> Bool { lhs.bytes == rhs.bytes }

    /// Never shows the key.
    public var description: String { "RecoveryKey(redacted)" }
    /// Never shows the key.
    public var debugDescription: String { description }
}
