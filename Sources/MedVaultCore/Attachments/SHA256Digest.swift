import Foundation

/// A SHA-256 digest (32 bytes), shown and coded as 64 lower-case hex digits.
///
/// For example:
///
/// ```swift
/// var hasher = SHA256Hasher()
/// hasher.update(Data("abc".utf8))
/// hasher.finalize().hex   // "ba7816bf…f20015ad"
/// ```
public struct SHA256Digest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// Wraps 32 digest bytes.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `bytes` is not 32 bytes long.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else {
            throw MedVaultError(.invalidArgument, reason: "a SHA-256 digest has 32 bytes")
        }
        self.bytes = bytes
    }

    /// Parses 64 hex digits (either case).
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` for anything else.
    public init(hex: String) throws {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else {
            throw MedVaultError(.invalidArgument, reason: "a SHA-256 digest has 64 hex digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw MedVaultError(.invalidArgument, reason: "a SHA-256 digest has 64 hex digits")
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// 64 lower-case hex digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }

    /// The digest of `data` in one call.
    public static func of(_ data: Data) -> SHA256Digest {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    public init(from decoder: any Decoder) throws {
        try self.init(hex: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
