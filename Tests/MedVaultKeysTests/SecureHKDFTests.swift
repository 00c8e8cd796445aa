import Crypto
import Foundation
import Testing
@testable import MedVaultKeys

@Suite("SecureHKDF")
struct SecureHKDFTests {
    func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    @Test("HMAC-SHA256 equals swift-crypto's for short, block-sized and long keys")
    func hmacMatches() {
        for keyLength in [0, 16, 32, 64, 65, 100] {
            let key = random(keyLength)
            let message = random(keyLength * 3 + 1)
            var ours = [UInt8](repeating: 0, count: 32)
            key.withUnsafeBytes { keyBytes in
                message.withUnsafeBytes { messageBytes in
                    ours.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
                }
            }
            let theirs = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
            #expect(ours == theirs, "key length \(keyLength)")
        }
    }

    @Test("HKDF-SHA256 equals swift-crypto's and RFC 5869 test case 1")
    func hkdfMatches() {
        for saltLength in [0, 16, 32, 80] {
            let ikm = random(32)
            let salt = random(saltLength)
            let info = random(20)
            let ours = ikm.withUnsafeBytes { SecureHKDF.deriveKey(inputKeyMaterial: $0, salt: salt, info: info) }
            let theirs = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info,
                                                outputByteCount: 32)
            #expect(ours == theirs, "salt length \(saltLength)")
        }
        // RFC 5869 A.1 (first 32 bytes of the 42-byte OKM).
        let ikm = [UInt8](repeating: 0x0B, count: 22)
        let salt = (0x00...0x0C).map { UInt8($0) }
        let info = (0xF0...0xF9).map { UInt8($0) }
        let okm = ikm.withUnsafeBytes { SecureHKDF.deriveKey(inputKeyMaterial: $0, salt: salt, info: info) }
        #expect(okm.withUnsafeBytes { hex($0) } == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")
    }
}
