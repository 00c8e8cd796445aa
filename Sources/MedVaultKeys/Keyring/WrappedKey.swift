/// A 256-bit key sealed with ChaCha20-Poly1305 (RFC 8439): a random 12-byte nonce, the
/// 32-byte ciphertext and the 16-byte tag.
public struct WrappedKey: Sendable, Hashable {
    /// The 12-byte nonce.
    public let nonce: [UInt8]
    /// The encrypted key.
    public let ciphertext: [UInt8]
    /// The 16-byte Poly1305 tag.
    public let tag: [UInt8]

    /// Nonce length in bytes.
    static let nonceLength = 12
    /// Ciphertext (and key) length in bytes.
    static let keyLength = 32
    /// Tag length in bytes.
    static let tagLength = 16
    /// Encoded length in bytes.
    static let encodedLength = nonceLength + keyLength + tagLength

    init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }
}
