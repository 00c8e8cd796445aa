import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing
@testable import MedVaultKeys

/// Ed25519 on libsodium (`Ed25519`, `SeededSigningKey`) against Python's `cryptography`.
@Suite("Ed25519")
struct Ed25519Tests {
    @Test("Seeded key pairs and their signatures are RFC 8032's: Python derives the same public keys and accepts the signatures")
    func agreesWithPython() async throws {
        let seeds = (0..<8).map { _ in (0..<32).map { _ in UInt8.random(in: 0...255) } }
        let messages = (0..<8).map { index in (0..<(index * 37)).map { _ in UInt8.random(in: 0...255) } }
        var publicKeys: [[UInt8]] = [], signatures: [[UInt8]] = []
        for (seed, message) in zip(seeds, messages) {
            let (publicKey, signature) = try SeededSigningKey.withKeyPair(seed: SecureBytes(copying: seed)) { publicKey, secret in
                (Array(publicKey), Array(SeededSigningKey.sign(Data(message), secretKey: secret)))
            }
            publicKeys.append(publicKey)
            signatures.append(signature)
            #expect(Ed25519.isValidSignature(signature, of: message, publicKey: publicKey))
            #expect(!Ed25519.isValidSignature(signature, of: message + [0], publicKey: publicKey))
        }
        let theirs = try await CryptoReference.answers(
            seeds.map { .ed25519PublicKey(seed: $0) }
                + zip(publicKeys, zip(messages, signatures)).map { .ed25519Verify(publicKey: $0, message: $1.0, signature: $1.1) })
        #expect(Array(theirs.prefix(8)) == publicKeys)
        #expect(Array(theirs.dropFirst(8)) == Array(repeating: [1], count: 8))
    }

    @Test("The in-memory store's key signs what Python accepts; a tampered signature is refused by both")
    func ephemeralKey() async throws {
        let key = Ed25519.EphemeralSigningKey()
        let message = Data("attestation".utf8)
        let signature = [UInt8](key.signature(for: message))
        var tampered = signature
        tampered[10] ^= 1
        let verdicts = try await CryptoReference.answers([
            .ed25519Verify(publicKey: [UInt8](key.publicKey), message: [UInt8](message), signature: signature),
            .ed25519Verify(publicKey: [UInt8](key.publicKey), message: [UInt8](message), signature: tampered),
        ])
        #expect(verdicts == [[1], [0]])
        #expect(Ed25519.isValidSignature(signature, of: [UInt8](message), publicKey: [UInt8](key.publicKey)))
        #expect(!Ed25519.isValidSignature(tampered, of: [UInt8](message), publicKey: [UInt8](key.publicKey)))
    }

    @Test("Wrong lengths, a small-order public key and a non-canonical S are refused, never a trap")
    func refusals() {
        let key = Ed25519.EphemeralSigningKey()
        let message: [UInt8] = [1, 2, 3]
        let signature = [UInt8](key.signature(for: Data(message)))
        #expect(!Ed25519.isValidSignature(Array(signature.dropLast()), of: message, publicKey: [UInt8](key.publicKey)))
        #expect(!Ed25519.isValidSignature(signature, of: message, publicKey: Array([UInt8](key.publicKey).dropLast())))
        #expect(!Ed25519.isValidSignature([], of: [], publicKey: []))
        // The identity point (small order): R = identity and S = 0 pass for every message.
        let identity = Ed25519Fixtures.identity
        #expect(!Ed25519.isValidSignature(identity + [UInt8](repeating: 0, count: 32), of: message, publicKey: identity))
        // S ≥ L (the group order): the signature's S plus L is the same scalar, not canonical.
        let (nonCanonical, carry) = Ed25519Fixtures.nonCanonical(signature)
        #expect(carry == 0 && nonCanonical[63] < 0x40)
        #expect(!Ed25519.isValidSignature(nonCanonical, of: message, publicKey: [UInt8](key.publicKey)))
    }
}
