import CSodium
import MedVaultCore

/// ChaCha20-Poly1305 (RFC 8439, the IETF construction) by libsodium
/// (`crypto_aead_chacha20poly1305_ietf_*_detached`), with the key read straight from the
/// caller's buffer.
///
/// Why not swift-crypto's `ChaChaPoly`: it keeps the key in a BoringSSL `EVP_AEAD_CTX`
/// inside a Swift object whose `deinit` calls `EVP_AEAD_CTX_cleanup`, which for
/// ChaCha20-Poly1305 does not clear the key; the object's memory then returns to `malloc`
/// with the key in it. KeyScanProbe found the vault key (the KEK of the database key) in
/// freed heap memory that way after `Vault.lock()`. libsodium takes a caller-owned key
/// buffer and wipes its ChaCha20 and Poly1305 states before it returns.
///
/// The output is byte-for-byte RFC 8439's AEAD construction: keyrings and envelopes sealed
/// by the hand-written implementation of earlier versions open unchanged (committed
/// fixtures, RFC vectors and a differential test against Python's `cryptography` check it).
/// A message longer than the construction allows (its 32-bit block counter: about
/// 256 GiB) is refused, never sealed with a repeated key stream.
enum SecureChaChaPoly {
    static let keyLength = Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES)
    static let nonceLength = Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)
    /// The longest message the construction seals: 64 bytes × (2³² − 1) blocks.
    static let maximumMessageLength = Int(crypto_aead_chacha20poly1305_ietf_messagebytes_max())

    /// A fresh random 96-bit nonce.
    static func randomNonce() -> [UInt8] {
        SecureRandom.bytes(nonceLength)
    }

    /// Seals `plaintext` into `ciphertext` (same length) and returns the 16-byte tag, or
    /// `nil` (nothing written) when the key, nonce or output length is wrong or the
    /// message is longer than ``maximumMessageLength``.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: [UInt8],
        associatedData: [UInt8], into ciphertext: UnsafeMutableRawBufferPointer
    ) -> [UInt8]? {
        guard key.count == keyLength, nonce.count == nonceLength, ciphertext.count == plaintext.count,
              plaintext.count <= maximumMessageLength, SecureMemory.sodiumReady else { return nil }
        // The key's words pass through vector registers.
        defer { SecureMemory.scrubAfterSecretUse() }
        var tag = [UInt8](repeating: 0, count: tagLength)
        var tagLengthWritten: UInt64 = 0
        let status = tag.withUnsafeMutableBytes { tagBytes in
            associatedData.withUnsafeBytes { ad in
                crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                    Self.bytes(ciphertext), Self.bytes(tagBytes), &tagLengthWritten,
                    Self.bytes(plaintext), UInt64(plaintext.count), Self.bytes(ad), UInt64(ad.count),
                    nil, nonce, Self.bytes(key))
            }
        }
        return status == 0 && tagLengthWritten == UInt64(tagLength) ? tag : nil
    }

    /// Opens `ciphertext` into `plaintext` (same length); `false` when the tag does not
    /// match (`plaintext` zeroed) or a length is wrong (nothing written).
    static func open(
        _ ciphertext: UnsafeRawBufferPointer, tag expected: [UInt8], key: UnsafeRawBufferPointer, nonce: [UInt8],
        associatedData: [UInt8], into plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard key.count == keyLength, nonce.count == nonceLength, expected.count == tagLength,
              plaintext.count == ciphertext.count, ciphertext.count <= maximumMessageLength,
              SecureMemory.sodiumReady else { return false }
        defer { SecureMemory.scrubAfterSecretUse() }
        let status = associatedData.withUnsafeBytes { ad in
            crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                Self.bytes(plaintext), nil, Self.bytes(ciphertext), UInt64(ciphertext.count), expected,
                Self.bytes(ad), UInt64(ad.count), nonce, Self.bytes(key))
        }
        // libsodium verifies the tag (in constant time) before it decrypts, and zeroes the
        // output on a failure; zeroed here too, so the contract holds whatever the version.
        guard status == 0 else {
            SecureMemory.zero(plaintext)
            return false
        }
        return true
    }

    /// The buffer's first byte for a C `unsigned char *` parameter, which libsodium
    /// declares non-null even with a zero length: an empty buffer (a message or associated
    /// data of zero bytes) passes ``emptyInput``, never read.
    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
        buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(emptyInput)
    }

    private static func bytes(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
        buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? emptyInput
    }

    /// One byte that stands for an empty buffer. Safety of `nonisolated(unsafe)`: it is
    /// allocated once and passed only with a length of zero, so nothing reads or writes it.
    private nonisolated(unsafe) static let emptyInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
}
