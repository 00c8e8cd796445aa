import Foundation
import MedVaultCore
import Testing

/// SHA-256 against the NIST FIPS 180-4 example vectors.
@Suite("SHA-256")
struct SHA256HasherTests {
    static func digest(_ text: String) -> String {
        SHA256Digest.of(Data(text.utf8)).hex
    }

    @Test func emptyString() {
        #expect(Self.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() {
        #expect(Self.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func twoBlockMessage() {
        #expect(Self.digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// One million 'a', fed in uneven pieces to exercise the block buffer.
    @Test func oneMillionA() {
        var hasher = SHA256Hasher()
        let piece = Data(repeating: UInt8(ascii: "a"), count: 999)
        var fed = 0
        while fed + piece.count <= 1_000_000 {
            hasher.update(piece)
            fed += piece.count
        }
        hasher.update(Data(repeating: UInt8(ascii: "a"), count: 1_000_000 - fed))
        #expect(hasher.count == 1_000_000)
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Any split of the input gives the digest of the whole, including at block edges.
    @Test(arguments: [1, 55, 56, 63, 64, 65, 127, 128, 1000])
    func splitsDoNotMatter(length: Int) {
        let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let whole = SHA256Digest.of(data)
        for cut in [0, 1, length / 2, length - 1, length] where (0...length).contains(cut) {
            var hasher = SHA256Hasher()
            hasher.update(data.prefix(cut))
            hasher.update(data.dropFirst(cut))
            #expect(hasher.finalize() == whole)
        }
    }

    @Test func digestHexParsingAndCoding() throws {
        let hex = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"
        let digest = try SHA256Digest(hex: hex)
        #expect(digest == SHA256Digest.of(Data("abc".utf8)))
        #expect(digest.hex == hex.lowercased())
        let json = try JSONEncoder().encode(digest)
        #expect(try JSONDecoder().decode(SHA256Digest.self, from: json) == digest)
        #expect(throws: MedVaultError.self) { try SHA256Digest(hex: "abc") }
        #expect(throws: MedVaultError.self) { try SHA256Digest(hex: String(repeating: "g", count: 64)) }
        #expect(throws: MedVaultError.self) { try SHA256Digest(bytes: [1, 2, 3]) }
        #expect(try SHA256Digest(bytes: digest.bytes) == digest)
    }
}
