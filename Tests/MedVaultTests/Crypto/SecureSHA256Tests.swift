import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

@Suite("SecureSHA256")
struct SecureSHA256Tests {
    func digest(_ parts: [[UInt8]]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        func hash(_ remaining: ArraySlice<[UInt8]>, _ pointers: [UnsafeRawBufferPointer]) {
            guard let first = remaining.first else {
                output.withUnsafeMutableBytes { SecureSHA256.hash(pointers, into: $0) }
                return
            }
            first.withUnsafeBytes { hash(remaining.dropFirst(), pointers + [$0]) }
        }
        hash(parts[...], [])
        return output
    }

    func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

    @Test("FIPS 180-4 examples: empty, \"abc\", two-block message")
    func standardVectors() {
        #expect(hex(digest([[]])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(digest([Array("abc".utf8)])) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(digest([twoBlocks])) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("equals Python's SHA-256 for every length around the padding boundaries, however split")
    func matchesPython() async throws {
        let messages = (Array(0...130) + [191, 192, 255, 256, 1000]).map { length in
            (0..<length).map { _ in UInt8.random(in: 0...255) }
        }
        let answers = try await CryptoReference.answers(messages.map { .sha256($0) })
        for (message, expected) in zip(messages, answers) {
            let length = message.count
            #expect(digest([message]) == expected, "length \(length)")
            let cut = length / 3
            #expect(digest([Array(message[..<cut]), [], Array(message[cut...])]) == expected, "length \(length), split")
            // Attachments' streaming hasher (MedVaultCore), fed in the same three parts.
            var hasher = SHA256Hasher()
            for part in [Array(message[..<cut]), [], Array(message[cut...])] { hasher.update(Data(part)) }
            #expect(hasher.count == UInt64(length))
            #expect(hasher.finalize().bytes == expected, "length \(length), SHA256Hasher")
        }
    }
}
