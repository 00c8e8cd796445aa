import CSodium
import Foundation
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

/// The primitives MedVault seals and authenticates with, against the published vectors of
/// their RFCs as PyPI's cryptography-vectors ships them (Tests/Scripts/crypto_vectors.py):
/// every ChaCha20-Poly1305 vector with a 96-bit nonce of RFC 8439 and the OpenSSL and
/// BoringSSL sets, RFC 8439's Poly1305 vectors, RFC 4231's HMAC-SHA256 and RFC 5869's
/// HKDF-SHA256 cases (the first 32 bytes of each output: MedVault derives one block).
@Suite("Primitive vectors", .timeLimit(.minutes(3)))
struct PrimitiveVectorTests {
    struct Vectors: Decodable {
        struct AEAD: Decodable {
            let key, nonce, aad, plaintext, ciphertext, tag: String
            let fails: Bool
        }
        struct Poly1305: Decodable { let key, message, tag: String }
        struct HMAC: Decodable { let key, message, mac: String }
        struct HKDF: Decodable { let ikm, salt, info, okm: String }
        let aead: [AEAD]
        let poly1305: [Poly1305]
        let hmac: [HMAC]
        let hkdf: [HKDF]
    }

    static func load() async throws -> Vectors {
        let child = try await PythonChild(script: "crypto_vectors.py")
        defer { child.stop() }
        try #require(!child.firstLine.isEmpty, "crypto_vectors.py printed nothing (is cryptography-vectors installed? make deps)")
        return try JSONDecoder().decode(Vectors.self, from: Data(child.firstLine.utf8))
    }

    @Test("ChaCha20-Poly1305: every published vector seals to its ciphertext and tag and opens back; a failing one is refused")
    func aead() async throws {
        let vectors = try await Self.load()
        // RFC 8439 §2.8.2 and A.5 are among them; the sets hold dozens more.
        #expect(vectors.aead.count >= 60)
        #expect(vectors.aead.contains { $0.fails })
        for vector in vectors.aead {
            let key = Hex.bytes(vector.key), nonce = Hex.bytes(vector.nonce), aad = Hex.bytes(vector.aad)
            let plaintext = Hex.bytes(vector.plaintext), ciphertext = Hex.bytes(vector.ciphertext), tag = Hex.bytes(vector.tag)
            var opened = [UInt8](repeating: 0xEE, count: ciphertext.count)
            let ok = key.withUnsafeBytes { keyBytes in
                ciphertext.withUnsafeBytes { input in
                    opened.withUnsafeMutableBytes { output in
                        SecureChaChaPoly.open(input, tag: tag, key: keyBytes, nonce: nonce, associatedData: aad,
                                              into: output)
                    }
                }
            }
            if vector.fails {
                #expect(!ok, "a vector whose tag is wrong opened")
                continue
            }
            #expect(ok && opened == plaintext, "vector with tag \(vector.tag) did not open")
            var sealed = [UInt8](repeating: 0, count: plaintext.count)
            let sealedTag = key.withUnsafeBytes { keyBytes in
                plaintext.withUnsafeBytes { input in
                    sealed.withUnsafeMutableBytes { output in
                        SecureChaChaPoly.seal(input, key: keyBytes, nonce: nonce, associatedData: aad, into: output)
                    }
                }
            }
            #expect(sealed == ciphertext && sealedTag == tag, "vector with tag \(vector.tag) sealed differently")
        }
    }

    @Test("Poly1305 (libsodium's, inside the AEAD): every RFC 8439 vector")
    func poly1305() async throws {
        let vectors = try await Self.load()
        #expect(vectors.poly1305.count >= 11)
        #expect(SecureMemory.sodiumReady)
        for vector in vectors.poly1305 {
            let key = Hex.bytes(vector.key), message = Hex.bytes(vector.message)
            var tag = [UInt8](repeating: 0, count: 16)
            crypto_onetimeauth_poly1305(&tag, message, UInt64(message.count), key)
            #expect(tag == Hex.bytes(vector.tag), "Poly1305 vector with tag \(vector.tag)")
        }
    }

    @Test("HMAC-SHA256: every RFC 4231 case, keys longer than a block included, by both HMAC paths")
    func hmac() async throws {
        let vectors = try await Self.load()
        #expect(vectors.hmac.count >= 6)
        #expect(vectors.hmac.contains { $0.key.count / 2 > 64 })
        for vector in vectors.hmac {
            let key = Hex.bytes(vector.key), message = Hex.bytes(vector.message), expected = Hex.bytes(vector.mac)
            var viaHKDF = [UInt8](repeating: 0, count: 32)
            var viaKey = [UInt8](repeating: 0, count: 32)
            key.withUnsafeBytes { keyBytes in
                message.withUnsafeBytes { messageBytes in
                    viaHKDF.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
                }
            }
            let keyed = key.withUnsafeBytes { SecureHMACKey(key: $0) }
            try message.withUnsafeBytes { messageBytes in
                try viaKey.withUnsafeMutableBytes { try keyed.authenticate(messageBytes, into: $0) }
            }
            #expect(viaHKDF == expected, "RFC 4231 MAC \(vector.mac)")
            #expect(viaKey == expected, "RFC 4231 MAC \(vector.mac), precomputed key")
        }
    }

    @Test("HKDF-SHA256: every RFC 5869 case (zero-length salt and info included)")
    func hkdf() async throws {
        let vectors = try await Self.load()
        #expect(vectors.hkdf.count >= 3)
        for vector in vectors.hkdf {
            let derived = Hex.bytes(vector.ikm).withUnsafeBytes {
                SecureHKDF.deriveSecureKey(inputKeyMaterial: $0, salt: Hex.bytes(vector.salt), info: Hex.bytes(vector.info))
            }
            let okm = try derived.withUnsafeBytes { Array($0) }
            #expect(okm == Array(Hex.bytes(vector.okm).prefix(32)), "RFC 5869 OKM \(vector.okm)")
        }
    }

    @Test("A message longer than ChaCha20-Poly1305 allows (its 32-bit block counter) is refused before a byte is read")
    func overLimitMessageIsRefused() {
        let limit = SecureChaChaPoly.maximumMessageLength
        #expect(limit == 64 * (Int(UInt32.max)))
        let key = [UInt8](repeating: 1, count: 32)
        var byte: UInt8 = 0
        // A buffer that claims one byte more than the limit; nothing may read it.
        withUnsafeMutableBytes(of: &byte) { real in
            let huge = UnsafeMutableRawBufferPointer(start: real.baseAddress, count: limit + 1)
            let sealed = key.withUnsafeBytes { keyBytes in
                SecureChaChaPoly.seal(UnsafeRawBufferPointer(huge), key: keyBytes, nonce: SecureChaChaPoly.randomNonce(),
                                      associatedData: [], into: huge)
            }
            #expect(sealed == nil)
            let opened = key.withUnsafeBytes { keyBytes in
                SecureChaChaPoly.open(UnsafeRawBufferPointer(huge), tag: [UInt8](repeating: 0, count: 16), key: keyBytes,
                                      nonce: SecureChaChaPoly.randomNonce(), associatedData: [], into: huge)
            }
            #expect(!opened)
        }
        #expect(byte == 0)
    }
}
