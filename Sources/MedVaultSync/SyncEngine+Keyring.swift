import Crypto
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

extension SyncEngine {
    /// Brings the keyring's shared slots (password, recovery) in line with the server's,
    /// once per sync. A device's own database key and platform slots never travel: a
    /// keyring is published whole, but the others take only its shared slots
    /// (`Vault.adoptSyncedKeyring`), and a change to those alone (a rotation) is not
    /// published.
    ///
    /// - Shared slots equal to the server's: nothing to do (the mark is brought up to date).
    /// - This device's shared slots changed since they were last published or adopted (a
    ///   password change, a new recovery key): this keyring is published with a
    ///   compare-and-swap on the generation just read (the newest local change wins over
    ///   one published meanwhile; the other device adopts it at its next sync).
    /// - Otherwise the server's shared slots are adopted: the new password opens this
    ///   device after it. One this device cannot take (other cipher settings) is skipped,
    ///   and records go on syncing.
    ///
    /// - Returns: Whether the keyring was published or adopted.
    @discardableResult
    func syncKeyring(_ credentials: SyncCredentials) async throws -> Bool {
        let local = try KeyringFile.read(at: vault.layout.keyring)
        let localShared = local.sharedSlotsDigest
        let mark = try await vault.database.read { db in try SyncStateStore.keyringMark(db) }
        let server = try await transport.keyring(as: credentials)
        let serverShared = try Keyring(serialized: Array(server.keyring)).sharedSlotsDigest
        if localShared == serverShared {
            if mark.generation != server.generation || mark.sha256 != localShared {
                try await remember(generation: server.generation, digest: localShared)
            }
            return false
        }
        if localShared != mark.sha256 {
            let published = try await transport.putKeyring(
                try SyncKeyringUpdate(expectedGeneration: server.generation,
                                      keyring: try SyncKeyringBlob(generation: server.generation + 1,
                                                                   keyring: Data(local.serialized()))),
                as: credentials)
            try await remember(generation: published.generation, digest: localShared)
            return true
        }
        do {
            try await vault.adoptSyncedKeyring(server.keyring)
        } catch let error as MedVaultError where error.code == .conflict {
            // A keyring this database cannot use (other cipher settings): records still
            // sync; the password of this device stays as it was. Tried again at the next sync.
            return false
        }
        let adopted = try KeyringFile.read(at: vault.layout.keyring)
        try await remember(generation: server.generation, digest: adopted.sharedSlotsDigest)
        return true
    }

    private func remember(generation: Int64, digest: Data) async throws {
        try await vault.database.write { db in
            try SyncStateStore.setKeyringMark(generation: generation, sha256: digest, db)
        }
    }
}
