import Crypto
import Foundation
import MedVaultCore
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
        #expect(hex(result.tag) == "1ae10b594f09e26a7e902ecbd0600691")
        #expect(hex(result.ciphertext.prefix(16)) == "d31a8d34648e60db7b86afbc53ef7ec2")
        #expect(hex(result.ciphertext.suffix(2)) == "6116")
        #expect(opened(result.ciphertext, tag: result.tag, key: key, nonce: nonce, ad: ad) == plaintext)
    }

    @Test("a key that is not 32 bytes seals nothing")
    func wrongKeyLength() throws {
        #expect(sealed([1, 2, 3], key: [UInt8](repeating: 7, count: 16), nonce: [UInt8](repeating: 0, count: 12), ad: []).tag.isEmpty)
        let error = #expect(throws: MedVaultError.self) {
            try KeyWrap.seal(SecureBytes.random(count: 32), under: SymmetricKey(size: .bits128), associatedData: [])
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("long messages, every associated-data length around a block, and buffers at odd addresses agree with swift-crypto")
    func wordWisePathsAgree() throws {
        for (length, adLength) in [(127, 0), (128, 16), (129, 17), (1_000, 33), (4_103, 15), (65_537, 1)] {
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255) }
            let ad = (0..<adLength).map { _ in UInt8.random(in: 0...255) }
            let theirs = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key),
                                             nonce: ChaChaPoly.Nonce(data: nonce), authenticating: ad)
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

    @Test("interoperates with swift-crypto's ChaChaPoly both ways, and refuses any tampering")
    func interoperates() throws {
        for length in [0, 1, 15, 16, 17, 32, 63, 64, 65, 200] {
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255) }
            let ad = (0..<(length % 40)).map { _ in UInt8.random(in: 0...255) }
            let ours = sealed(plaintext, key: key, nonce: nonce, ad: ad)
            let theirs = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key),
                                             nonce: ChaChaPoly.Nonce(data: nonce), authenticating: ad)
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
