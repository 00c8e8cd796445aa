import CSodium
import Foundation
import MedVaultCore

/// An Ed25519 key pair derived from a 32-byte seed held in secure memory (libsodium's
/// `crypto_sign_seed_keypair`), for the keys MedVault derives rather than stores: each
/// professional's session-signing key and the vault's device-signing key. The libsodium
/// secret key (seed ‖ public key) lives in secure pages for one call and is wiped after.
enum SeededSigningKey {
    /// Runs `body` with the public key of `seed` and its libsodium secret key.
    ///
    /// - Throws: `MedVaultError.Code.locked` when `seed` was wiped; `storage` when libsodium
    ///   could not initialise; whatever `body` throws.
    static func withKeyPair<Result>(seed: SecureBytes,
                                    _ body: (Data, UnsafePointer<UInt8>) throws -> Result) throws -> Result {
        guard SecureMemory.sodiumReady else { throw MedVaultError(.storage, reason: "libsodium is not initialised") }
        let secretKey = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { _ in }
        defer {
            secretKey.wipe()
            // The seed's hash and the key pair passed through vector registers and libsodium's frames.
            SecureMemory.scrubAfterSecretUse()
        }
        var publicKey = Data(count: Int(crypto_sign_PUBLICKEYBYTES))
        return try seed.withUnsafeBytes { seedBytes in
            guard seedBytes.count == Int(crypto_sign_SEEDBYTES) else {
                // Unreachable: every caller derives a 32-byte seed.
                throw MedVaultError(.storage, reason: "an Ed25519 seed is 32 bytes (a MedVault bug)")
            }
            return try secretKey.withFreshMutableBytes { secret in
                _ = publicKey.withUnsafeMutableBytes { output in
                    crypto_sign_seed_keypair(output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                             secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                             seedBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
                return try body(publicKey, UnsafePointer(secret.baseAddress!.assumingMemoryBound(to: UInt8.self)))
            }
        }
    }

    /// The 64-byte Ed25519 signature of `message` under a libsodium secret key.
    static func sign(_ message: Data, secretKey: UnsafePointer<UInt8>) -> Data {
        var signature = Data(count: Int(crypto_sign_BYTES))
        signature.withUnsafeMutableBytes { output in
            message.withUnsafeBytes { input in
                withUnsafeBytes(of: UInt8(0)) { empty in
                    // Always 0: crypto_sign_detached cannot fail with a well-formed key.
                    _ = crypto_sign_detached(
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                        (input.baseAddress ?? empty.baseAddress!).assumingMemoryBound(to: UInt8.self),
                        UInt64(input.count), secretKey)
                }
            }
        }
        return signature
    }
}
