import Crypto
import Foundation
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

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("FIPS 180-4 examples: empty, \"abc\", two-block message")
    func standardVectors() {
        #expect(hex(digest([[]])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(digest([Array("abc".utf8)])) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(digest([twoBlocks])) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("equals swift-crypto's SHA256 for every length around the padding boundaries, however split")
    func matchesSwiftCrypto() {
        for length in Array(0...130) + [191, 192, 255, 256, 1000] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let expected = Array(SHA256.hash(data: message))
            #expect(digest([message]) == expected, "length \(length)")
            let cut = length / 3
            #expect(digest([Array(message[..<cut]), [], Array(message[cut...])]) == expected, "length \(length), split")
        }
    }
}
