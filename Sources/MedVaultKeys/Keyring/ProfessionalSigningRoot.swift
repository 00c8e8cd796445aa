import Crypto
import Foundation
import MedVaultCore

/// The root of the professionals' session-signing keys, derived from the vault key:
/// `root = HKDF-SHA256(vault key, salt = vault id, "MedVault professional signing root v1")`,
/// and a professional's Ed25519 seed
/// `HKDF-SHA256(root, salt = professional id, "MedVault professional signing key v1")`
/// (ids as their 16 bytes; docs/keyring-format.md, "Derived keys").
///
/// Every device of a vault derives the same key for the same professional, so signatures
/// made on one verify as the vault's on the others; nothing is stored. The root lives in
/// secure memory from unlock to `lock()`; each seed exists for one call, and the Ed25519
/// private key in swift-crypto's memory (zeroed when released) for that call only.
package final class ProfessionalSigningRoot: SessionSigner {
    static let rootLabel = Array("MedVault professional signing root v1".utf8)
    static let keyLabel = Array("MedVault professional signing key v1".utf8)

    private let root: SecureBytes

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

    /// Wipes the root: later calls throw `locked`.
    package func wipe() {
        root.wipe()
    }

    package func sign(_ content: Data, professionalID: UUID) throws -> (publicKey: Data, signature: Data) {
        let key = try privateKey(professionalID)
        do {
            return (key.publicKey.rawRepresentation, try key.signature(for: content))
        } catch {
            throw MedVaultError(.storage, reason: "signing a session failed")
        }
    }

    package func publicKey(professionalID: UUID) throws -> Data {
        try privateKey(professionalID).publicKey.rawRepresentation
    }

    private func privateKey(_ professionalID: UUID) throws -> Curve25519.Signing.PrivateKey {
        let salt = withUnsafeBytes(of: professionalID.uuid) { Array($0) }
        let seed = try root.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: Self.keyLabel)
        }
        defer { seed.wipe() }
        let key = try seed.withUnsafeBytes { try? Curve25519.Signing.PrivateKey(rawRepresentation: $0) }
        // Unreachable: any 32 bytes are a valid Ed25519 seed.
        guard let key else { throw MedVaultError(.storage, reason: "a professional signing seed was refused") }
        return key
    }
}
