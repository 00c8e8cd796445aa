import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// What the server holds never contains a key: every byte handed to the transport and
/// the server's whole saved state are scanned for each device's secret keys.
@Suite("Sync engine: no key material reaches the server")
struct SyncKeyMaterialTests {
    @Test("The vault key, each device's database key, the sync keys and the audit key appear in no request and nowhere in the server's state, raw, hex or base64")
    func keyScan() async throws {
        try await withTemporaryDirectory { dir in
            let stateFile = dir.file("server-state")
            let server = try InMemorySyncTransport(persistingTo: stateFile)
            await server.recordRequestBytes()
            let devices = try await SyncDevices.make(2, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let patient = try await devices.vaults[0].patients.create(SyncFixtures.markedPatient())
            // A password change re-wraps the keyring, which the engine publishes.
            try await devices.vaults[1].changePassword(from: try VaultFixtures.password(),
                                                       to: try Password("otra contraseña larga"))
            try await devices.syncAll()
            #expect(try await devices.vaults[1].patients.get(patient.id).id == patient.id)
            #expect(await server.recordedRequestBytes().count >= 4)

            var secrets: [[UInt8]] = []
            for vault in devices.vaults { secrets += try await Self.keys(of: vault) }
            // Two devices share the vault key and its derived keys, but not their database keys.
            #expect(Set(secrets.map { Data($0) }).count == 5 + 2)

            let haystacks = await SyncFixtures.bytesSeen(by: server) + [try Data(contentsOf: stateFile)]
            for secret in secrets {
                let bytes = Data(secret)
                let base64 = bytes.base64EncodedString()
                let needles = [bytes, Data(bytes.map { String(format: "%02x", $0) }.joined().utf8),
                               Data(base64.utf8),
                               Data(base64.replacingOccurrences(of: "+", with: "-")
                                   .replacingOccurrences(of: "/", with: "_")
                                   .replacingOccurrences(of: "=", with: "").utf8),
                               // A key's first half is already too much.
                               bytes.prefix(16)]
                for haystack in haystacks {
                    for needle in needles { #expect(haystack.range(of: needle) == nil) }
                }
            }
        }
    }

    /// The vault key, this device's database key, and the keys derived from the vault
    /// key as docs/sync.md and docs/audit.md specify them (HKDF-SHA256, the vault id as
    /// salt), derived here independently by Python's `cryptography`.
    private static func keys(of vault: Vault) async throws -> [[UInt8]] {
        let (vaultKey, databaseKey) = try await vault.keys.perform { operation in
            let vaultKey = try operation.vaultKey.withUnsafeBytes { Array($0) }
            let databaseKey = try await operation.keyring().databaseKey(vaultKey: operation.vaultKey)
            defer { databaseKey.wipe() }
            return (vaultKey, try databaseKey.withUnsafeBytes { Array($0) })
        }
        let salt = withUnsafeBytes(of: vault.vaultID.uuid) { Array($0) }
        let derived = try await CryptoReference.answers(
            ["MedVault sync envelope key v1", "MedVault sync record key v1",
             "MedVault sync device signing key v1", "MedVault audit trail key v1"].map { label in
                .hkdf(inputKeyMaterial: vaultKey, salt: salt, info: Array(label.utf8))
            })
        return [vaultKey, databaseKey] + derived
    }
}
