import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

@Suite("SecureChaChaPoly")
struct SecureChaChaPolyTests {
    func sealed(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], ad: [UInt8]) -> (ciphertext: [UInt8], tag: [UInt8]) {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let tag = plaintext.withUnsafeBytes { input in
            key.withUnsafeBytes { keyBytes in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(input, key: keyBytes, nonce: nonce, associatedData: ad, into: output)
                }
            }
        }
        return (ciphertext, tag ?? [])
    }

    func opened(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], ad: [UInt8]) -> [UInt8]? {
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let ok = ciphertext.withUnsafeBytes { input in
            key.withUnsafeBytes { keyBytes in
                plaintext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.open(input, tag: tag, key: keyBytes, nonce: nonce, associatedData: ad, into: output)
                }
            }
        }
        return ok ? plaintext : nil
    }

    @Test("RFC 8439 §2.8.2 AEAD vector")
    func rfcVector() {
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let key = (0x80...0x9F).map { UInt8($0) }
        let nonce: [UInt8] = [0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47]
        let ad: [UInt8] = [0x50, 0x51, 0x52, 0x53, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7]
        let result = sealed(plaintext, key: key, nonce: nonce, ad: ad)
        #expect(Hex.string(result.tag) == "1ae10b594f09e26a7e902ecbd0600691")
        #expect(Hex.string(Array(result.ciphertext.prefix(16))) == "d31a8d34648e60db7b86afbc53ef7ec2")
        #expect(Hex.string(Array(result.ciphertext.suffix(2))) == "6116")
        #expect(opened(result.ciphertext, tag: result.tag, key: key, nonce: nonce, ad: ad) == plaintext)
    }

    @Test("a key that is not 32 bytes seals nothing")
    func wrongKeyLength() throws {
        #expect(sealed([1, 2, 3], key: [UInt8](repeating: 7, count: 16), nonce: [UInt8](repeating: 0, count: 12), ad: []).tag.isEmpty)
        let error = #expect(throws: MedVaultError.self) {
            try KeyWrap.seal(SecureBytes.random(count: 32), under: SecureBytes.random(count: 16), associatedData: [])
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("a wiped key-encryption key opens nothing and seals nothing")
    func wipedKeyEncryptionKey() throws {
        let kek = SecureBytes.random(count: 32)
        let wrapped = try KeyWrap.seal(SecureBytes.random(count: 32), under: kek, associatedData: [1])
        #expect(KeyWrap.open(wrapped, under: kek, associatedData: [1]) != nil)
        kek.wipe()
        #expect(KeyWrap.open(wrapped, under: kek, associatedData: [1]) == nil)
        let error = #expect(throws: MedVaultError.self) {
            try KeyWrap.seal(SecureBytes.random(count: 32), under: kek, associatedData: [])
        }
        #expect(error?.code == .locked)
    }

    /// A random case: plaintext, key, nonce, associated data.
    static func randomCase(length: Int, adLength: Int) -> (plaintext: [UInt8], key: [UInt8], nonce: [UInt8], ad: [UInt8]) {
        let random = { (count: Int) in (0..<count).map { _ in UInt8.random(in: 0...255) } }
        return (random(length), random(32), random(12), random(adLength))
    }

    /// Python's ciphertext and tag for each case.
    static func theirs(_ cases: [(plaintext: [UInt8], key: [UInt8], nonce: [UInt8], ad: [UInt8])]) async throws
        -> [(ciphertext: [UInt8], tag: [UInt8])] {
        let answers = try await CryptoReference.answers(cases.map {
            .chachaSeal(key: $0.key, nonce: $0.nonce, associatedData: $0.ad, message: $0.plaintext)
        })
        return zip(cases, answers).map { (Array($1.prefix($0.plaintext.count)), Array($1.dropFirst($0.plaintext.count))) }
    }

    @Test("long messages, every associated-data length around a block, and buffers at odd addresses agree with Python's")
    func wordWisePathsAgree() async throws {
        let cases = [(127, 0), (128, 16), (129, 17), (1_000, 33), (4_103, 15), (65_537, 1)].map {
            Self.randomCase(length: $0.0, adLength: $0.1)
        }
        for ((plaintext, key, nonce, ad), theirs) in zip(cases, try await Self.theirs(cases)) {
            let length = plaintext.count
            // One byte in: every 8- and 16-byte load of the message is unaligned.
            let shiftedInput = [0] + plaintext
            var shiftedOutput = [UInt8](repeating: 0, count: length + 1)
            let tag = shiftedInput.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    shiftedOutput.withUnsafeMutableBytes { output in
                        SecureChaChaPoly.seal(UnsafeRawBufferPointer(rebasing: input[1...]), key: keyBytes, nonce: nonce,
                                              associatedData: ad, into: UnsafeMutableRawBufferPointer(rebasing: output[1...]))
                    }
                }
            }
            #expect(Array(shiftedOutput.dropFirst()) == Array(theirs.ciphertext), "length \(length)")
            #expect(tag == Array(theirs.tag), "length \(length)")
            let shiftedCiphertext = [0] + Array(theirs.ciphertext)
            var opened = [UInt8](repeating: 0, count: length + 1)
            let ok = shiftedCiphertext.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    opened.withUnsafeMutableBytes { output in
                        SecureChaChaPoly.open(UnsafeRawBufferPointer(rebasing: input[1...]), tag: Array(theirs.tag),
                                              key: keyBytes, nonce: nonce, associatedData: ad,
                                              into: UnsafeMutableRawBufferPointer(rebasing: output[1...]))
                    }
                }
            }
            #expect(ok && Array(opened.dropFirst()) == plaintext, "length \(length)")
        }
    }

    @Test("interoperates with Python's ChaCha20Poly1305 both ways, and refuses any tampering")
    func interoperates() async throws {
        let cases = [0, 1, 15, 16, 17, 32, 63, 64, 65, 200].map { Self.randomCase(length: $0, adLength: $0 % 40) }
        for ((plaintext, key, nonce, ad), theirs) in zip(cases, try await Self.theirs(cases)) {
            let length = plaintext.count
            let ours = sealed(plaintext, key: key, nonce: nonce, ad: ad)
            #expect(ours.ciphertext == Array(theirs.ciphertext), "length \(length)")
            #expect(ours.tag == Array(theirs.tag), "length \(length)")
            #expect(opened(Array(theirs.ciphertext), tag: Array(theirs.tag), key: key, nonce: nonce, ad: ad) == plaintext)
            var badTag = ours.tag
            badTag[length % 16] ^= 1
            #expect(opened(ours.ciphertext, tag: badTag, key: key, nonce: nonce, ad: ad) == nil)
            #expect(opened(ours.ciphertext, tag: ours.tag, key: key, nonce: nonce, ad: ad + [0]) == nil)
            if length > 0 {
                var badCiphertext = ours.ciphertext
                badCiphertext[length - 1] ^= 0x80
                #expect(opened(badCiphertext, tag: ours.tag, key: key, nonce: nonce, ad: ad) == nil)
            }
        }
    }
}
