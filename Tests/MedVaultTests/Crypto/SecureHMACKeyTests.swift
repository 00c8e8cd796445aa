import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

/// The audit trail's HMAC with precomputed pad states must be RFC 2104 HMAC-SHA256 exactly:
/// every existing trail was MACed with the straightforward HMAC and must still verify.
@Suite("SecureHMACKey")
struct SecureHMACKeyTests {
    func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    func mac(_ key: SecureHMACKey, _ message: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        try message.withUnsafeBytes { message in
            try output.withUnsafeMutableBytes { try key.authenticate(message, into: $0) }
        }
        return output
    }

    @Test("equals Python's HMAC-SHA256 for random keys and every message length around the block boundaries")
    func matchesPython() async throws {
        let keys = [0, 1, 16, 31, 32, 33, 63, 64].map { random($0) }
        let cases = keys.flatMap { key in (Array(0...200) + [255, 256, 1000, 4096]).map { (key: key, message: random($0)) } }
        let expected = try await CryptoReference.answers(cases.map { .hmac(key: $0.key, message: $0.message) })
        for (index, (keyBytes, message)) in cases.enumerated() {
            let key = keyBytes.withUnsafeBytes { SecureHMACKey(key: $0) }
            #expect(try mac(key, message) == expected[index], "key \(keyBytes.count) bytes, message \(message.count) bytes")
        }
    }

    @Test("a message read from an unaligned address gives the same MAC")
    func unalignedMessage() async throws {
        let keyBytes = random(32)
        let key = keyBytes.withUnsafeBytes { SecureHMACKey(key: $0) }
        let buffer = random(300)
        let expected = try await CryptoReference.answers((1..<8).map {
            .hmac(key: keyBytes, message: Array(buffer[$0..<($0 + 150)]))
        })
        for start in 1..<8 {
            var output = [UInt8](repeating: 0, count: 32)
            try buffer.withUnsafeBytes { all in
                let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + 150)])
                try output.withUnsafeMutableBytes { try key.authenticate(slice, into: $0) }
            }
            #expect(output == expected[start - 1], "offset \(start)")
        }
    }

    @Test("a wiped key refuses to MAC with locked and writes nothing")
    func wipedKeyThrows() throws {
        let key = random(32).withUnsafeBytes { SecureHMACKey(key: $0) }
        #expect(!key.isWiped)
        key.wipe()
        #expect(key.isWiped)
        var output = [UInt8](repeating: 0xAA, count: 32)
        let error = #expect(throws: MedVaultError.self) {
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { message in
                try output.withUnsafeMutableBytes { try key.authenticate(message, into: $0) }
            }
        }
        #expect(error?.code == .locked)
        #expect(output == [UInt8](repeating: 0xAA, count: 32))
    }
}
