import Foundation
import MedVaultCore

/// Seals and opens 256-bit keys with ChaCha20-Poly1305, and derives the keyring's
/// internal keys. Internal: the format document describes every input byte.
enum KeyWrap {
    /// Labels that separate the uses of the same key material.
    enum Label {
        static let slot = Array("MedVault slot v1".utf8)
        static let databaseKey = Array("MedVault database key v1".utf8)
        static let recoveryKEK = Array("MedVault recovery slot KEK v1".utf8)
        static let headerMAC = Array("MedVault keyring MAC v1".utf8)
    }

    /// Role of a wrapped database key, bound into its associated data.
    enum Role: UInt8 {
        case current = 1
        case pending = 2
    }

    /// A key-encryption key over the secret's bytes: a copy in its own secure pages, so it
    /// outlives a `wipe()` of the secret it came from.
    ///
    /// - Throws: `MedVaultError.Code.locked` when `bytes` was wiped.
    static func key(_ bytes: SecureBytes) throws -> SecureBytes {
        try bytes.copy()
    }

    /// Seals a 32-byte key under `kek` with a fresh random nonce (ChaCha20-Poly1305,
    /// computed in secure memory: see ``SecureChaChaPoly``).
    ///
    /// - Throws: `MedVaultError.Code.locked` when `secret` was wiped (sealing its zeros
    ///   would make a slot that opens to an all-zero key).
    static func seal(_ secret: SecureBytes, under kek: SecureBytes, associatedData: [UInt8]) throws -> WrappedKey {
        let nonce = SecureChaChaPoly.randomNonce()
        var ciphertext = [UInt8](repeating: 0, count: secret.count)
        let tag = try secret.withUnsafeBytes { plaintext in
            try kek.withUnsafeBytes { key in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData, into: output)
                }
            }
        }
        guard let tag else { throw MedVaultError(.invalidArgument, reason: "a key-encryption key must be 32 bytes") }
        return WrappedKey(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Opens a wrapped key straight into secure pages; `nil` when the KEK or the associated
    /// data is not the one it was sealed with.
    static func open(_ wrapped: WrappedKey, under kek: SecureBytes, associatedData: [UInt8]) -> SecureBytes? {
        guard wrapped.nonce.count == WrappedKey.nonceLength, wrapped.tag.count == WrappedKey.tagLength,
              wrapped.ciphertext.count == WrappedKey.keyLength, kek.count == WrappedKey.keyLength else { return nil }
        let plaintext = SecureBytes(count: WrappedKey.keyLength) { _ in }
        // A wiped KEK opens nothing.
        let opened = plaintext.withFreshMutableBytes { output in
            (try? kek.withUnsafeBytes { key in
                wrapped.ciphertext.withUnsafeBytes { ciphertext in
                    SecureChaChaPoly.open(ciphertext, tag: wrapped.tag, key: key, nonce: wrapped.nonce,
                                          associatedData: associatedData, into: output)
                }
            }) ?? false
        }
        guard opened else {
            plaintext.wipe()
            return nil
        }
        return plaintext
    }

    /// The version bound into every seal's associated data: 1 in every keyring format
    /// version (version 2 added the audit record, not a new way of sealing), so a slot
    /// sealed in a version-1 file opens unchanged in a version-2 one.
    static let sealingVersion: UInt16 = 1

    /// Associated data of a slot's seal.
    static func slotAssociatedData(vaultID: UUID, header: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Label.slot)
        writer.append(sealingVersion)
        writer.append(vaultID)
        writer.append(raw: header)
        return writer.bytes
    }

    /// Associated data of a wrapped database key.
    static func databaseKeyAssociatedData(vaultID: UUID, role: Role, generation: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Label.databaseKey)
        writer.append(sealingVersion)
        writer.append(vaultID)
        writer.append(role.rawValue)
        writer.append(generation)
        return writer.bytes
    }

    /// The recovery slot's KEK: HKDF-SHA256(recovery key, salt, label), computed in secure
    /// memory (see ``SecureHKDF``).
    static func recoveryKEK(_ recoveryKey: RecoveryKey, salt: [UInt8]) throws -> SecureBytes {
        try recoveryKey.bytes.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: Label.recoveryKEK)
        }
    }

    /// The header MAC: HMAC-SHA256 over the body, under HKDF-SHA256(vault key, vault id, label).
    static func headerMAC(body: [UInt8], vaultKey: SecureBytes, vaultID: UUID) throws -> [UInt8] {
        var salt = ByteWriter()
        salt.append(vaultID)
        let macKey = try vaultKey.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.headerMAC)
        }
        defer { macKey.wipe() }
        var tag = [UInt8](repeating: 0, count: SecureHKDF.outputLength)
        try macKey.withUnsafeBytes { key in
            body.withUnsafeBytes { message in
                tag.withUnsafeMutableBytes { output in SecureHKDF.hmac(key: key, [message], into: output) }
            }
        }
        return tag
    }
}
