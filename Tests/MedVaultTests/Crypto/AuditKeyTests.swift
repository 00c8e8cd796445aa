import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

/// The audit key and its MACs against values computed outside MedVault (Python's `hmac`
/// and `hashlib`, docs/audit.md's formulas, and `cryptography`'s HKDF): trails written
/// before the MAC was computed from precomputed pad states verify unchanged.
@Suite("AuditKey")
struct AuditKeyTests {
    static let vaultKey = SecureBytes(copying: (0..<32).map { UInt8($0) })
    static let vaultID = UUID(uuidString: "3f2a9c1e-0b7d-4e5f-9a8b-1c2d3e4f5a6b")!

    @Test("mac_0 is HMAC-SHA256(HKDF-SHA256(vault key, vault id, label), \"MedVault audit chain v1\"): known answer")
    func knownAnswer() throws {
        let key = try AuditKey(vaultKey: Self.vaultKey, vaultID: Self.vaultID)
        let genesis = try key.mac([Array("MedVault audit chain v1".utf8)])
        #expect(Hex.string(genesis) == "966d90b27f6c4149701139031c9b68f226c645783e64ba0a577cd05955a7affc")
        // The same message in two parts, as the checkpoint file MACs its label and body.
        #expect(try key.mac([Array("MedVault audit".utf8), Array(" chain v1".utf8)]) == genesis)
    }

    @Test("mac(_:into:) equals Python's HMAC under the HKDF-derived key, for random vault keys and messages")
    func fastPathMatchesPython() async throws {
        let vaults = (0..<20).map { _ in (key: (0..<32).map { _ in UInt8.random(in: 0...255) }, id: UUID()) }
        let derived = try await CryptoReference.answers(vaults.map {
            .hkdf(inputKeyMaterial: $0.key, salt: withUnsafeBytes(of: $0.id.uuid) { Array($0) },
                  info: Array("MedVault audit trail key v1".utf8))
        })
        let lengths = [0, 23, 55, 56, 64, 99, 119, 120, 200]
        let cases = derived.indices.flatMap { vault in
            lengths.map { (vault: vault, message: (0..<$0).map { _ in UInt8.random(in: 0...255) }) }
        }
        let expected = try await CryptoReference.answers(cases.map { .hmac(key: derived[$0.vault], message: $0.message) })
        let keys = try vaults.map { try AuditKey(vaultKey: SecureBytes(copying: $0.key), vaultID: $0.id) }
        for (index, (vault, message)) in cases.enumerated() {
            let key = keys[vault]
            var output = [UInt8](repeating: 0, count: 32)
            try message.withUnsafeBytes { message in
                try output.withUnsafeMutableBytes { try key.mac(message, into: $0) }
            }
            #expect(output == expected[index], "message of \(message.count) bytes")
            #expect(try key.mac([message]) == expected[index])
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
