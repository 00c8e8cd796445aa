import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

/// 100,000 random cases of ChaCha20-Poly1305, HMAC-SHA256 and HKDF-SHA256 through
/// MedVault's primitives and through Python's `cryptography` (OpenSSL underneath), which
/// derives the same cases from the same seed (Tests/Scripts/crypto_differential.py documents
/// the construction): messages of 0–319 bytes and, every 997th case, past 64 KiB; associated
/// data of 0–79 bytes; HMAC keys of 1–140 bytes (longer than a block from 65 on); salts and
/// infos of every small length. Each run takes a fresh seed, printed when it fails.
@Suite("Primitive differential test", .timeLimit(.minutes(5)))
struct PrimitiveDifferentialTests {
    static let count = 100_000

    @Test("100,000 random cases agree with Python's cryptography, block by block, and every sealed case opens back")
    func agreesWithPythonCryptography() async throws {
        let seed = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let seedHex = seed.map { String(format: "%02x", $0) }.joined()
        let child = try await PythonChild(script: "crypto_differential.py", arguments: [seedHex, String(Self.count)],
                                          timeout: .seconds(240))
        defer { child.stop() }
        struct Answer: Decodable { let digests: [String] }
        try #require(!child.firstLine.isEmpty, "crypto_differential.py printed nothing (seed \(seedHex))")
        let reference = try JSONDecoder().decode(Answer.self, from: Data(child.firstLine.utf8)).digests
        #expect(reference.count == Self.count / 1000)

        var mismatches: [Int] = []
        for block in 0..<(Self.count / 1000) {
            var digest = SHA256Hasher()
            for index in (block * 1000)..<(block * 1000 + 1000) {
                digest.update(Data(try Self.outputs(Self.parts(seed: seed, index: index))))
            }
            let hex = digest.finalize().hex
            if block >= reference.count || hex != reference[block] { mismatches.append(block) }
        }
        #expect(mismatches.isEmpty, "blocks of 1,000 cases that differ: \(mismatches.prefix(10)) (seed \(seedHex))")
    }

    /// SHA-256(seed ‖ u32be(index) ‖ u32be(j)) for j = 0, 1, …, the first `length` bytes.
    static func stream(seed: [UInt8], index: Int, length: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length + 32)
        var block: UInt32 = 0
        while out.count < length {
            var input = seed
            withUnsafeBytes(of: UInt32(index).bigEndian) { input += $0 }
            withUnsafeBytes(of: block.bigEndian) { input += $0 }
            out += SHA256Digest.of(Data(input)).bytes
            block += 1
        }
        return Array(out.prefix(length))
    }

    /// key, nonce, aad, message, HMAC key, HKDF input key material, salt, info.
    static func parts(seed: [UInt8], index: Int) -> [[UInt8]] {
        let head = stream(seed: seed, index: index, length: 32)
        var message = (Int(head[0]) << 8 | Int(head[1])) % 320
        if index % 997 == 0 { message += 65_536 }
        let lengths = [32, 12, Int(head[2]) % 80, message, 1 + Int(head[3]) % 140, 32, Int(head[4]) % 70,
                       Int(head[5]) % 40]
        let body = stream(seed: seed, index: index, length: 32 + lengths.reduce(0, +)).dropFirst(32)
        var parts: [[UInt8]] = []
        var offset = body.startIndex
        for length in lengths {
            parts.append(Array(body[offset..<(offset + length)]))
            offset += length
        }
        return parts
    }

    /// ciphertext ‖ tag ‖ HMAC ‖ HKDF's first block, after checking the sealed case opens back.
    static func outputs(_ parts: [[UInt8]]) throws -> [UInt8] {
        let (key, nonce, aad, message, hmacKey, ikm, salt, info) =
            (parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7])
        var ciphertext = [UInt8](repeating: 0, count: message.count)
        let tag = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { input in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(input, key: keyBytes, nonce: nonce, associatedData: aad, into: output)
                }
            }
        }
        let sealedTag = try #require(tag)
        var opened = [UInt8](repeating: 0, count: message.count)
        let ok = key.withUnsafeBytes { keyBytes in
            ciphertext.withUnsafeBytes { input in
                opened.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.open(input, tag: sealedTag, key: keyBytes, nonce: nonce, associatedData: aad,
                                          into: output)
                }
            }
        }
        #expect(ok && opened == message)
        var mac = [UInt8](repeating: 0, count: 32)
        hmacKey.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                mac.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
            }
        }
        let derived = ikm.withUnsafeBytes { SecureHKDF.deriveSecureKey(inputKeyMaterial: $0, salt: salt, info: info) }
        let okm: [UInt8] = try derived.withUnsafeBytes { Array($0) }
        return ciphertext + sealedTag + mac + okm
    }
}
