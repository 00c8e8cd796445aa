import Crypto
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
    /// Number of checksum bytes.
    static let checksumLength = 3
    /// Number of groups in ``formatted``.
    public static let groupCount = 8
    /// Characters per group in ``formatted``.
    public static let groupLength = 7

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let checksumLabel = Array("MedVault recovery key checksum v1".utf8)

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
        let symbolCount = Self.groupCount * Self.groupLength
        var count = 0
        for byte in text where !Self.isSeparator(byte) {
            guard Self.value(of: byte) != nil else {
                throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "invalid character")
            }
            count += 1
        }
        guard count == symbolCount else {
            throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "wrong length")
        }
        let symbols = SecureBytes(count: symbolCount) { buffer in
            var index = 0
            for byte in text where !Self.isSeparator(byte) {
                buffer[index] = Self.value(of: byte) ?? 0
                index += 1
            }
        }
        defer { symbols.wipe() }
        let decoded = try symbols.withUnsafeBytes { source in
            SecureBytes(count: Self.keyLength + Self.checksumLength) { target in Self.unpack(source, into: target) }
        }
        defer { decoded.wipe() }
        let matches = try decoded.withUnsafeBytes { bytes in
            let key = UnsafeRawBufferPointer(rebasing: bytes[0..<Self.keyLength])
            return Array(bytes[Self.keyLength...]) == Self.checksum(of: key)
        }
        guard matches else {
            throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "checksum mismatch")
        }
        self.bytes = try decoded.withUnsafeBytes { bytes in
            SecureBytes(count: Self.keyLength) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<Self.keyLength]))
            }
        }
    }

    /// The key as 8 groups of 7 Crockford base32 characters joined by hyphens.
    ///
    /// The key, its checksum and its symbols are assembled in ``SecureBytes`` buffers;
    /// only the returned `String` holds the text, and it cannot be wiped: show it and let
    /// it go. Reading a wiped key (the vault was locked) yields an empty string.
    public var formatted: String {
        let symbolCount = Self.groupCount * Self.groupLength
        let payloadLength = Self.keyLength + Self.checksumLength
        guard let symbols = try? bytes.withUnsafeBytes({ key -> SecureBytes in
            let payload = SecureBytes(count: payloadLength) { buffer in
                buffer.copyMemory(from: key)
                let checksum = Self.checksum(of: key)
                for (offset, byte) in checksum.enumerated() { buffer[key.count + offset] = byte }
            }
            defer { payload.wipe() }
            return try payload.withUnsafeBytes { source in
                SecureBytes(count: symbolCount) { target in Self.pack(source, into: target) }
            }
        }) else { return "" }
        defer { symbols.wipe() }
        let textLength = symbolCount + Self.groupCount - 1
        return (try? symbols.withUnsafeBytes { source in
            String(unsafeUninitializedCapacity: textLength) { text in
                var position = 0
                for index in 0..<symbolCount {
                    if index > 0, index % Self.groupLength == 0 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = Self.alphabet[Int(source[index])]
                    position += 1
                }
                return position
            }
        }) ?? ""
    }

    /// Compares the keys in constant time.
    public static func == (lhs: RecoveryKey, rhs: RecoveryKey) -> Bool { lhs.bytes == rhs.bytes }

    /// Never shows the key.
    public var description: String { "RecoveryKey(redacted)" }
    /// Never shows the key.
    public var debugDescription: String { description }

    // MARK: - Encoding

    /// The checksum: the first bytes of SHA-256(label ‖ key), hashed by ``SecureSHA256``
    /// so that no hash context keeps the key after it is released.
    private static func checksum(of key: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SecureSHA256.digestLength)
        checksumLabel.withUnsafeBytes { label in
            digest.withUnsafeMutableBytes { SecureSHA256.hash([label, key], into: $0) }
        }
        return Array(digest.prefix(checksumLength))
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    /// Crockford decoding: case-insensitive, I/L → 1, O → 0, U refused.
    private static func value(of byte: UInt8) -> UInt8? {
        var upper = byte
        if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(upper) { upper -= 32 }
        switch upper {
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "O"): return 0
        default:
            guard let index = alphabet.firstIndex(of: upper) else { return nil }
            return UInt8(index)
        }
    }

    /// Big-endian bits, 5 per symbol; 35 bytes make exactly 56 symbols.
    private static func pack(_ bytes: UnsafeRawBufferPointer, into symbols: UnsafeMutableRawBufferPointer) {
        var buffer: UInt32 = 0
        var bits = 0
        var position = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5, position < symbols.count {
                symbols[position] = UInt8((buffer >> UInt32(bits - 5)) & 0x1F)
                position += 1
                bits -= 5
            }
        }
        buffer = 0
    }

    private static func unpack(_ symbols: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) {
        var buffer: UInt32 = 0
        var bits = 0
        var position = 0
        for symbol in symbols {
            buffer = (buffer << 5) | UInt32(symbol)
            bits += 5
            if bits >= 8, position < bytes.count {
                bytes[position] = UInt8((buffer >> UInt32(bits - 8)) & 0xFF)
                position += 1
                bits -= 8
            }
        }
        buffer = 0
    }
}
