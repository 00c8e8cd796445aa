import Crypto
import Foundation
import Hummingbird

/// Device bearer tokens: 32 random bytes, base64url without padding, shown once.
///
/// The server stores only SHA-256 of the token's bytes, so a copy of the database lets
/// nobody act as a device.
enum DeviceToken {
    /// Length of a token's random bytes.
    static let byteCount = 32

    /// A new token and the hash to store.
    static func make() -> (token: String, hash: Data) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return (encode(bytes), hash(bytes))
    }

    /// The stored hash of a presented token, or nil when it is not a well-formed token.
    static func hash(presented token: String) -> Data? {
        guard let bytes = decode(token), bytes.count == byteCount else { return nil }
        return hash(bytes)
    }

    /// The token of an `Authorization: Bearer …` header, or nil.
    static func bearer(in request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst("Bearer ".count))
    }

    /// Whether two secrets are equal, in a time that does not depend on where they differ.
    static func constantTimeEqual(_ presented: String, _ expected: String) -> Bool {
        let a = Array(presented.utf8), b = Array(expected.utf8)
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<b.count {
            difference |= (index < a.count ? a[index] : 0) ^ b[index]
        }
        return difference == 0
    }

    private static func hash(_ bytes: [UInt8]) -> Data {
        Data(SHA256.hash(data: bytes))
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func decode(_ token: String) -> [UInt8]? {
        guard token.count == 43, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        return Data(base64Encoded: standard).map(Array.init)
    }
}
