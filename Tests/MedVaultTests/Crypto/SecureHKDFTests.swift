import Foundation
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

@Suite("SecureHKDF")
struct SecureHKDFTests {
    func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    @Test("HMAC-SHA256 equals Python's for short, block-sized and long keys")
    func hmacMatches() async throws {
        let cases = [0, 16, 32, 64, 65, 100].map { keyLength in (key: random(keyLength), message: random(keyLength * 3 + 1)) }
        let theirs = try await CryptoReference.answers(cases.map { .hmac(key: $0.key, message: $0.message) })
        for (index, (key, message)) in cases.enumerated() {
            var ours = [UInt8](repeating: 0, count: 32)
            key.withUnsafeBytes { keyBytes in
                message.withUnsafeBytes { messageBytes in
                    ours.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
                }
            }
            #expect(ours == theirs[index], "key length \(key.count)")
        }
    }

    @Test("HKDF-SHA256 equals Python's and RFC 5869 test case 1")
    func hkdfMatches() async throws {
        let cases = [0, 16, 32, 80].map { saltLength in (ikm: random(32), salt: random(saltLength), info: random(20)) }
        let theirs = try await CryptoReference.answers(cases.map { .hkdf(inputKeyMaterial: $0.ikm, salt: $0.salt, info: $0.info) })
        for (index, (ikm, salt, info)) in cases.enumerated() {
            let ours = ikm.withUnsafeBytes { SecureHKDF.deriveSecureKey(inputKeyMaterial: $0, salt: salt, info: info) }
            #expect(try ours.withUnsafeBytes { Array($0) } == theirs[index], "salt length \(salt.count)")
        }
        // RFC 5869 A.1 (first 32 bytes of the 42-byte OKM).
        let ikm = [UInt8](repeating: 0x0B, count: 22)
        let salt = (0x00...0x0C).map { UInt8($0) }
        let info = (0xF0...0xF9).map { UInt8($0) }
        let okm = ikm.withUnsafeBytes { SecureHKDF.deriveSecureKey(inputKeyMaterial: $0, salt: salt, info: info) }
        #expect(try okm.withUnsafeBytes { Hex.string(Array($0)) } == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")
    }
}
