import Crypto
import Foundation
import MedVault
import MedVaultCore
import MedVaultSyncWire

extension SyncEngine {
    /// Brings the keyring in line with the server's, once per sync.
    ///
    /// - This device's keyring file changed since it was last published or adopted (a
    ///   password change, a new recovery key): it is published with a compare-and-swap
    ///   on the generation just read (the newest local change wins over one published
    ///   meanwhile; the other device adopts it at its next sync).
    /// - Otherwise, a newer generation on the server is adopted
    ///   (`Vault.adoptSyncedKeyring`): the new password opens this device after it. A
    ///   keyring holding another database key (a device rotated its own) is not adopted,
    ///   and records go on syncing.
    ///
    /// - Returns: Whether the keyring was published or adopted.
    @discardableResult
    func syncKeyring(_ credentials: SyncCredentials) async throws -> Bool {
        let local = try Data(contentsOf: vault.layout.keyring)
        let localDigest = Data(SHA256.hash(data: local))
        let mark = try await vault.database.read { db in try SyncStateStore.keyringMark(db) }
        let server = try await transport.keyring(as: credentials)
        if localDigest != mark.sha256 {
            guard server.keyring != local else {
                try await remember(generation: server.generation, digest: localDigest)
                return false
            }
            let published = try await transport.putKeyring(
                try SyncKeyringUpdate(expectedGeneration: server.generation,
                                      keyring: try SyncKeyringBlob(generation: server.generation + 1, keyring: local)),
                as: credentials)
            try await remember(generation: published.generation, digest: localDigest)
            return true
        }
        guard server.generation > mark.generation else { return false }
        do {
            try await vault.adoptSyncedKeyring(server.keyring)
        } catch let error as MedVaultError where error.code == .conflict {
            // A keyring this database cannot use (another device rotated its database
            // key, or a rotation is in flight): records still sync; the password of
            // this device stays as it was. Tried again at the next sync.
            return false
        }
        let adopted = try Data(contentsOf: vault.layout.keyring)
        try await remember(generation: server.generation, digest: Data(SHA256.hash(data: adopted)))
        return true
    }

    private func remember(generation: Int64, digest: Data) async throws {
        try await vault.database.write { db in
            try SyncStateStore.setKeyringMark(generation: generation, sha256: digest, db)
        }
    }
}
