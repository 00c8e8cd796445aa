import Foundation
import MedVaultCore
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// `SyncDeviceProof.isValidSignature` calls libsodium itself (the wire module has no
/// MedVaultCore), so it is checked case by case against the devices' own check,
/// `Ed25519.isValidSignature`: the server must accept exactly what every device would.
@Suite("Sync wire: the device proof's signature check")
struct SyncDeviceProofSignatureTests {
    @Test("Valid, tampered, truncated, empty, small-order and non-canonical signatures: the same verdict as the devices' check")
    func sameVerdicts() {
        let key = Ed25519.EphemeralSigningKey()
        let message: [UInt8] = Array("MedVault sync join v2".utf8) + (0..<64).map { UInt8($0) }
        let signature = [UInt8](key.signature(for: Data(message)))
        let publicKey = [UInt8](key.publicKey)
        var tampered = signature
        tampered[5] ^= 0x20
        let identity = Ed25519Fixtures.identity
        let nonCanonical = Ed25519Fixtures.nonCanonical(signature).signature
        let cases: [(name: String, signature: [UInt8], message: [UInt8], key: [UInt8], valid: Bool)] = [
            ("valid", signature, message, publicKey, true),
            ("another message", signature, message + [0], publicKey, false),
            ("tampered", tampered, message, publicKey, false),
            ("short signature", Array(signature.dropLast()), message, publicKey, false),
            ("short key", signature, message, Array(publicKey.dropLast()), false),
            ("empty", [], [], [], false),
            ("small-order key, R = identity, S = 0", identity + [UInt8](repeating: 0, count: 32), message, identity, false),
            ("non-canonical S (S + L)", nonCanonical, message, publicKey, false),
        ]
        for item in cases {
            let wire = SyncDeviceProof.isValidSignature(Data(item.signature), of: Data(item.message), by: Data(item.key))
            #expect(wire == item.valid, "\(item.name)")
            #expect(wire == Ed25519.isValidSignature(item.signature, of: item.message, publicKey: item.key), "\(item.name)")
        }
    }
}
