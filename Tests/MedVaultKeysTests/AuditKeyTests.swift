import Crypto
import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

/// The audit key and its MACs against values computed outside MedVault (Python's `hmac`
/// and `hashlib`, docs/audit.md's formulas) and against swift-crypto: trails written
/// before the MAC was computed from precomputed pad states verify unchanged.
@Suite("AuditKey")
struct AuditKeyTests {
    static let vaultKey = SecureBytes(copying: (0..<32).map { UInt8($0) })
    static let vaultID = UUID(uuidString: "3f2a9c1e-0b7d-4e5f-9a8b-1c2d3e4f5a6b")!

    @Test("mac_0 is HMAC-SHA256(HKDF-SHA256(vault key, vault id, label), \"MedVault audit chain v1\"): known answer")
    func knownAnswer() throws {
        let key = try AuditKey(vaultKey: Self.vaultKey, vaultID: Self.vaultID)
        let genesis = try key.mac([Array("MedVault audit chain v1".utf8)])
        #expect(hex(genesis) == "966d90b27f6c4149701139031c9b68f226c645783e64ba0a577cd05955a7affc")
        // The same message in two parts, as the checkpoint file MACs its label and body.
        #expect(try key.mac([Array("MedVault audit".utf8), Array(" chain v1".utf8)]) == genesis)
    }

    @Test("mac(_:into:) equals swift-crypto's HMAC under the HKDF-derived key, for random vault keys and messages")
    func fastPathMatchesSwiftCrypto() throws {
        for _ in 0..<20 {
            let vaultKeyBytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let vaultID = UUID()
            let key = try AuditKey(vaultKey: SecureBytes(copying: vaultKeyBytes), vaultID: vaultID)
            let derived = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: vaultKeyBytes), salt: withUnsafeBytes(of: vaultID.uuid) { Array($0) },
                info: Array("MedVault audit trail key v1".utf8), outputByteCount: 32)
            for length in [0, 23, 55, 56, 64, 99, 119, 120, 200] {
                let message = (0..<length).map { _ in UInt8.random(in: 0...255) }
                var output = [UInt8](repeating: 0, count: 32)
                try message.withUnsafeBytes { message in
                    try output.withUnsafeMutableBytes { try key.mac(message, into: $0) }
                }
                let expected = Array(HMAC<SHA256>.authenticationCode(for: message, using: derived))
                #expect(output == expected, "message of \(length) bytes")
                #expect(try key.mac([message]) == expected)
            }
        }
    }

    @Test("an output that is not 32 bytes is refused with invalidArgument; a wiped key with locked")
    func refusals() throws {
        let key = try AuditKey(vaultKey: Self.vaultKey, vaultID: Self.vaultID)
        var short = [UInt8](repeating: 0, count: 31)
        let sizeError = #expect(throws: MedVaultError.self) {
            try [UInt8]([1, 2, 3]).withUnsafeBytes { message in
                try short.withUnsafeMutableBytes { try key.mac(message, into: $0) }
            }
        }
        #expect(sizeError?.code == .invalidArgument)
        #expect(short == [UInt8](repeating: 0, count: 31))
        key.wipe()
        #expect(key.isWiped)
        let lockedError = #expect(throws: MedVaultError.self) { try key.mac([[1, 2, 3]]) }
        #expect(lockedError?.code == .locked)
    }
}
