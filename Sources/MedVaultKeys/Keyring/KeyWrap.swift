import Crypto
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

    /// A swift-crypto key over the secret's bytes, copied straight from the secure pages
    /// into swift-crypto's own zeroing storage.
    ///
    /// - Throws: ``MedVaultError/Code/locked`` when `bytes` was wiped.
    static func key(_ bytes: SecureBytes) throws -> SymmetricKey {
        try bytes.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// Seals a 32-byte key under `kek` with a fresh random nonce.
    static func seal(_ secret: SecureBytes, under kek: SymmetricKey, associatedData: [UInt8]) throws -> WrappedKey {
        // A wiped secret throws `locked` here: sealing its zeros would make a slot that
        // opens to an all-zero key.
        let box = try secret.withUnsafeBytes { plaintext in
            do {
                return try ChaChaPoly.seal(plaintext, using: kek, nonce: ChaChaPoly.Nonce(), authenticating: associatedData)
            } catch {
                throw MedVaultError(.storage, reason: "could not seal a key")
            }
        }
        return WrappedKey(nonce: Array(box.nonce), ciphertext: Array(box.ciphertext), tag: Array(box.tag))
    }

    /// Opens a wrapped key; `nil` when the KEK or the associated data is not the one it was sealed with.
    static func open(_ wrapped: WrappedKey, under kek: SymmetricKey, associatedData: [UInt8]) -> SecureBytes? {
        guard let nonce = try? ChaChaPoly.Nonce(data: wrapped.nonce),
              let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: wrapped.ciphertext, tag: wrapped.tag),
              var plaintext = try? ChaChaPoly.open(box, using: kek, authenticating: associatedData)
        else { return nil }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        guard plaintext.count == WrappedKey.keyLength else { return nil }
        // Straight from the AEAD's output buffer (wiped above) into secure pages.
        return plaintext.withUnsafeBytes { source in
            SecureBytes(count: source.count) { target in target.copyMemory(from: source) }
        }
    }

    /// Associated data of a slot's seal.
    static func slotAssociatedData(formatVersion: UInt16, vaultID: UUID, header: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Label.slot)
        writer.append(formatVersion)
        writer.append(vaultID)
        writer.append(raw: header)
        return writer.bytes
    }

    /// Associated data of a wrapped database key.
    static func databaseKeyAssociatedData(formatVersion: UInt16, vaultID: UUID, role: Role, generation: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Label.databaseKey)
        writer.append(formatVersion)
        writer.append(vaultID)
        writer.append(role.rawValue)
        writer.append(generation)
        return writer.bytes
    }

    /// The recovery slot's KEK: HKDF-SHA256(recovery key, salt, label).
    static func recoveryKEK(_ recoveryKey: RecoveryKey, salt: [UInt8]) throws -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: try key(recoveryKey.bytes), salt: salt, info: Label.recoveryKEK, outputByteCount: 32
        )
    }

    /// The header MAC: HMAC-SHA256 over the body, under HKDF-SHA256(vault key, vault id, label).
    static func headerMAC(body: [UInt8], vaultKey: SecureBytes, vaultID: UUID) throws -> [UInt8] {
        var salt = ByteWriter()
        salt.append(vaultID)
        let macKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: try key(vaultKey), salt: salt.bytes, info: Label.headerMAC, outputByteCount: 32
        )
        return Array(HMAC<SHA256>.authenticationCode(for: body, using: macKey))
    }
}
