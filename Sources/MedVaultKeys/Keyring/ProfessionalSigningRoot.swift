import CSodium
import Foundation
import MedVaultCore

/// The root of the professionals' session-signing keys, derived from the vault key:
/// `root = HKDF-SHA256(vault key, salt = vault id, "MedVault professional signing root v1")`,
/// and a professional's Ed25519 seed
/// `HKDF-SHA256(root, salt = professional id, "MedVault professional signing key v1")`
/// (ids as their 16 bytes; docs/keyring-format.md, "Keys derived from the vault key").
///
/// Every device of a vault derives the same key for the same professional, so signatures
/// made on one verify as the vault's on the others; nothing is stored. The root lives in
/// secure memory from unlock to `lock()`. Signing runs on libsodium
/// (`crypto_sign_seed_keypair`, `crypto_sign_detached`: RFC 8032, the same signatures as
/// any Ed25519), with the seed and the secret key in secure memory for one call and
/// libsodium wiping its expanded scalar and nonce. Public keys are kept once derived (they
/// are not secret), so reading a page of signed sessions derives each professional's once.
package final class ProfessionalSigningRoot: SessionSigner, @unchecked Sendable {
    // Safety of @unchecked Sendable: `publicKeys` is read and written only under `lock`;
    // `root` is a SecureBytes, itself Sendable.
    static let rootLabel = Array("MedVault professional signing root v1".utf8)
    static let keyLabel = Array("MedVault professional signing key v1".utf8)

    private let root: SecureBytes
    private let lock = NSLock()
    private var publicKeys: [UUID: Data] = [:]

    /// Derives the root of `vaultKey` for the vault `vaultID`.
    ///
    /// - Throws: `invalidArgument` for a vault key that is not 32 bytes; `locked` when it
    ///   was wiped.
    package init(vaultKey: SecureBytes, vaultID: UUID) throws {
        guard vaultKey.count == SecureHKDF.outputLength else {
            throw MedVaultError(.invalidArgument, reason: "a vault key is 32 bytes")
        }
        let salt = withUnsafeBytes(of: vaultID.uuid) { Array($0) }
        root = try vaultKey.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: Self.rootLabel)
        }
    }

    /// Wipes the root and forgets the public keys: later calls throw `locked`.
    package func wipe() {
        root.wipe()
        lock.withLock { publicKeys.removeAll() }
    }

    package func sign(_ content: Data, professionalID: UUID) throws -> (publicKey: Data, signature: Data) {
        try withKeyPair(professionalID) { publicKey, secretKey in
            (publicKey, SeededSigningKey.sign(content, secretKey: secretKey))
        }
    }

    package func publicKey(professionalID: UUID) throws -> Data {
        // A wiped root throws `locked` whatever is cached: the vault locked.
        guard !root.wasWiped else { throw SecureBytes.wipedError }
        if let known = lock.withLock({ publicKeys[professionalID] }) { return known }
        let publicKey = try withKeyPair(professionalID) { publicKey, _ in publicKey }
        lock.withLock { publicKeys[professionalID] = publicKey }
        return publicKey
    }

    /// Runs `body` with the professional's public key and libsodium secret key (64 bytes:
    /// seed ‖ public key), both derived for this call; the seed and the secret key live in
    /// secure memory, wiped on return.
    private func withKeyPair<Result>(_ professionalID: UUID,
                                     _ body: (Data, UnsafePointer<UInt8>) throws -> Result) throws -> Result {
        let salt = withUnsafeBytes(of: professionalID.uuid) { Array($0) }
        let seed = try root.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: Self.keyLabel)
        }
        defer { seed.wipe() }
        return try SeededSigningKey.withKeyPair(seed: seed, body)
    }
}
