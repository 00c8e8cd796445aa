import CSodium
import Foundation

/// Ed25519 signatures (RFC 8032) by libsodium (`crypto_sign_*`): the session signatures'
/// check and the in-memory store's signer.
///
/// libsodium's verification is the strict one: besides the equation, it refuses a public
/// key or signature point of small order and a non-canonical `S`, which no RFC 8032
/// signer produces (a committed fixture's swift-crypto signature and Python
/// `cryptography`'s checks of libsodium's signatures are tested).
package enum Ed25519 {
    /// Length of a public key.
    package static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    /// Length of a signature.
    package static let signatureLength = Int(crypto_sign_BYTES)

    /// Whether `signature` is `publicKey`'s signature of `message`. Wrong lengths are
    /// `false`, never a trap.
    package static func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard LibSodium.ready, signature.count == signatureLength, publicKey.count == publicKeyLength else {
            return false
        }
        // An empty array still passes a valid (non-null) pointer to C.
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// A random signing key for the in-memory store's signer (`InMemoryVault`), its
    /// secret key zeroed (`sodium_memzero`) when the last reference goes. Vault keys are
    /// derived and kept in guarded memory by MedVaultKeys.
    package final class EphemeralSigningKey: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: the buffer is written once, in `init`, before
        // the instance is shared; afterwards `crypto_sign_detached` only reads it (any
        // number of threads at once), and `deinit` runs when no reference is left.
        private let secretKey: UnsafeMutablePointer<UInt8>
        /// The public key (32 bytes).
        package let publicKey: Data

        /// A fresh random key pair.
        package init() {
            // sodium_init first, as libsodium asks. Should the system give no randomness,
            // libsodium's generator aborts inside crypto_sign_keypair (it never returns a
            // predictable key), which is also the only way sodium_init can fail.
            _ = LibSodium.ready
            var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
            secretKey = .allocate(capacity: Int(crypto_sign_SECRETKEYBYTES))
            crypto_sign_keypair(&publicKey, secretKey)
            self.publicKey = Data(publicKey)
        }

        deinit {
            sodium_memzero(secretKey, Int(crypto_sign_SECRETKEYBYTES))
            secretKey.deallocate()
        }

        /// The signature of `message` (64 bytes).
        package func signature(for message: Data) -> Data {
            var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
            let messageBytes = [UInt8](message)
            crypto_sign_detached(&signature, nil, messageBytes, UInt64(messageBytes.count), secretKey)
            return Data(signature)
        }
    }
}
