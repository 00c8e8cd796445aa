/// Hostile Ed25519 signatures the crypto and sync tests both refuse.
package enum Ed25519Fixtures {
    /// The identity point (small order): with R = identity and S = 0 the verification
    /// equation holds for every message, which is why libsodium refuses such a key.
    package static let identity = [UInt8(1)] + [UInt8](repeating: 0, count: 31)

    /// L, the order of the group, little-endian.
    package static let order: [UInt8] = [0xED, 0xD3, 0xF5, 0x5C, 0x1A, 0x63, 0x12, 0x58, 0xD6, 0x9C, 0xF7, 0xA2, 0xDE, 0xF9,
                                         0xDE, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]

    /// `signature` with S + L in place of S: the same scalar, not canonical. S < L < 2^253,
    /// so S + L fits in 32 bytes (`carry` is 0 and the top byte below 0x40).
    package static func nonCanonical(_ signature: [UInt8]) -> (signature: [UInt8], carry: Int) {
        var result = signature
        var carry = 0
        for index in 0..<32 {
            let sum = Int(result[32 + index]) + Int(order[index]) + carry
            result[32 + index] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        return (result, carry)
    }
}
