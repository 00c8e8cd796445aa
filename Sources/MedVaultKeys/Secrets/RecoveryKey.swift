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
    /// - Parameter text: The 56 characters, in any case, with any spaces or hyphens.
    /// - Throws: `MedVaultError.Code.invalidArgument` with field `"recoveryKey"`: "invalid
    ///   character", "wrong length" or "checksum mismatch".
    public init(parsing text: String) throws {
        var symbols: [UInt8] = []
        symbols.reserveCapacity(Self.groupCount * Self.groupLength)
        defer { Self.wipe(&symbols) }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            default:
                guard let value = Self.value(of: byte) else {
                    throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "invalid character")
                }
                symbols.append(value)
            }
        }
        guard symbols.count == Self.groupCount * Self.groupLength else {
            throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "wrong length")
        }
        var decoded = Self.unpack(symbols)
        defer { Self.wipe(&decoded) }
        var key = Array(decoded[0..<Self.keyLength])
        defer { Self.wipe(&key) }
        guard Array(decoded[Self.keyLength...]) == Self.checksum(of: key) else {
            throw MedVaultError(.invalidArgument, field: "recoveryKey", reason: "checksum mismatch")
        }
        self.bytes = SecureBytes(copying: key)
    }

    /// The key as 8 groups of 7 Crockford base32 characters joined by hyphens.
    ///
    /// The returned `String` cannot be wiped: show it and let it go.
    public var formatted: String {
        var payload = bytes.withUnsafeBytes { Array($0) }
        payload += Self.checksum(of: payload)
        defer { Self.wipe(&payload) }
        let symbols = Self.pack(payload)
        var groups: [String] = []
        for start in stride(from: 0, to: symbols.count, by: Self.groupLength) {
            let characters = symbols[start..<(start + Self.groupLength)].map { Self.alphabet[Int($0)] }
            groups.append(String(decoding: characters, as: UTF8.self))
        }
        return groups.joined(separator: "-")
    }

    /// Compares the keys in constant time.
    public static func == (lhs: RecoveryKey, rhs: RecoveryKey) -> Bool { lhs.bytes == rhs.bytes }

    /// Never shows the key.
    public var description: String { "RecoveryKey(redacted)" }
    /// Never shows the key.
    public var debugDescription: String { description }

    // MARK: - Encoding

    private static func checksum(of key: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: checksumLabel)
        hasher.update(data: key)
        return Array(hasher.finalize().prefix(checksumLength))
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
    private static func pack(_ bytes: [UInt8]) -> [UInt8] {
        var symbols: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                symbols.append(UInt8((buffer >> UInt32(bits - 5)) & 0x1F))
                bits -= 5
            }
        }
        return symbols
    }

    private static func unpack(_ symbols: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            buffer = (buffer << 5) | UInt32(symbol)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
