import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport

extension SyncFixtures {
    /// Pushes `envelopes` (sealed in `vault`'s current epoch) as `credentials`' device,
    /// signed with `vault`'s device key as its engine signs: a device that crafts what it
    /// pushes, which the others then judge by content.
    @discardableResult
    static func signedPush(_ envelopes: [SyncEnvelope], vault: Vault, server: InMemorySyncTransport,
                           as credentials: SyncCredentials) async throws -> SyncPushResponse {
        guard let deviceKey = try await vault.database.read({ db in try SyncEpochRecord.deviceKey(db) }) else {
            throw MedVaultError(.invalidArgument, reason: "the test vault has no device key")
        }
        let signature = try await vault.withSyncKeyChain { chain in
            try PushSignatures.sign(envelopes, vaultID: vault.vaultID, deviceKey: deviceKey,
                                    certificate: try SyncEngine.certificate(of: deviceKey, deviceID: credentials.deviceID,
                                                                            vaultID: vault.vaultID, keys: chain.current))
        }
        return try await server.push(SyncPushRequest(envelopes: envelopes, signature: signature), as: credentials)
    }
}
