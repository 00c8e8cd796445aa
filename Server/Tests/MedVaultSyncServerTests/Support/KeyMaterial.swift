import Crypto
import Foundation
@testable import MedVault
import MedVaultKeys

/// A device's secret keys, for scans of what the server stores: the vault key, the
/// device's database key, and the keys derived from the vault key as docs/sync.md and
/// docs/audit.md specify them (HKDF-SHA256 with the vault id as salt), derived here
/// with swift-crypto, independently of the library's own derivation.
enum KeyMaterial {
    static let derivedLabels = ["MedVault sync envelope key v1", "MedVault sync record key v1",
                                "MedVault sync device signing key v1", "MedVault audit trail key v1"]

    static func of(_ vault: Vault) async throws -> [[UInt8]] {
        let salt = withUnsafeBytes(of: vault.vaultID.uuid) { Array($0) }
        return try await vault.keys.perform { operation in
            let vaultKey = try operation.vaultKey.withUnsafeBytes { Array($0) }
            let databaseKey = try await operation.keyring().databaseKey(vaultKey: operation.vaultKey)
            defer { databaseKey.wipe() }
            let derived = derivedLabels.map { label in
                HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: vaultKey), salt: salt,
                                       info: Array(label.utf8), outputByteCount: 32)
                    .withUnsafeBytes { Array($0) }
            }
            return [vaultKey, try databaseKey.withUnsafeBytes { Array($0) }] + derived
        } + (try await epochMaterial(of: vault))
    }

    /// Each epoch key the vault holds with the envelope and authority keys derived from it
    /// (salt: vault id ‖ epoch, big-endian), then its device key's seed.
    static func epochMaterial(of vault: Vault) async throws -> [[UInt8]] {
        let (epochs, deviceKey) = try await vault.database.read { db in
            (try db.fetchAll("SELECT epoch, key FROM sync_epoch_key ORDER BY epoch") { row in
                (UInt32(row.int64(at: 0)), Array(row.blob(at: 1)))
            }, try db.fetchOne("SELECT device_key FROM sync_state WHERE device_key IS NOT NULL") { Array($0.blob(at: 0)) })
        }
        var material: [[UInt8]] = []
        for (epoch, key) in epochs {
            let salt = withUnsafeBytes(of: vault.vaultID.uuid) { Array($0) } + withUnsafeBytes(of: epoch.bigEndian) { Array($0) }
            material.append(key)
            for label in ["MedVault sync epoch envelope key v2", "MedVault sync epoch authority key v2"] {
                material.append(HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key), salt: salt,
                                                       info: Array(label.utf8), outputByteCount: 32).withUnsafeBytes { Array($0) })
            }
        }
        return material + (deviceKey.map { [$0] } ?? [])
    }

    /// The Ed25519 seed of the authority key of the vault's newest epoch: what signs its
    /// join and renewal proofs.
    static func authoritySeed(of vault: Vault) async throws -> [UInt8] {
        let material = try await epochMaterial(of: vault)
        let epochs = material.count / 3
        guard epochs > 0 else { return try await of(vault)[4] }
        return material[(epochs - 1) * 3 + 2]
    }

    /// How a key could appear in a dump: raw, hex (PostgreSQL's `bytea` output), base64
    /// and base64url, and its first half raw and in hex.
    static func encodings(of key: [UInt8]) -> [Data] {
        let bytes = Data(key)
        let hex = { (data: Data) in Data(data.map { String(format: "%02x", $0) }.joined().utf8) }
        let base64 = bytes.base64EncodedString()
        let base64url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return [bytes, hex(bytes), Data(base64.utf8), Data(base64url.utf8), bytes.prefix(16), hex(bytes.prefix(16))]
    }
}
