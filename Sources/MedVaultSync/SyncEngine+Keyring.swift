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
    ///   password change, a new recovery key; never when nothing was published or adopted
    ///   here yet, as on a device that just joined): this keyring is published with a
    ///   compare-and-swap on the generation just read (the newest local change wins over
    ///   one published meanwhile; the other device adopts it at its next sync).
    /// - The server's generation is not past the one this device last published or
    ///   adopted, yet its slots differ: the server went back (restored from a backup, or
    ///   misbehaving). This device's keyring is published again rather than the older
    ///   password adopted. (The generation is the server's word, not authenticated: a
    ///   server that relabels an old keyring is not caught; see docs/sync.md.)
    /// - Otherwise the server's shared slots are adopted, unless this device's changed
    ///   meanwhile: the new password opens this device after it. One this device cannot
    ///   take (damaged, forged, another vault's, a newer format, other cipher settings)
    ///   is left alone, and records go on syncing.
    ///
    /// - Throws: Transport and storage errors.
    @discardableResult
    func syncKeyring(_ credentials: SyncCredentials) async throws -> SyncKeyringOutcome {
        let local = try KeyringFile.read(at: vault.layout.keyring)
        let localShared = local.sharedSlotsDigest
        let mark = try await vault.database.read { db in try SyncStateStore.keyringMark(db) }
        let server = try await transport.keyring(as: credentials)
        // No mark: nothing was published or adopted here yet (a device that just joined,
        // a vault just restored), so nothing of this device's is waiting to be published:
        // its keyring may be older than the server's.
        let changedHere = mark.sha256.map { $0 != localShared } ?? false
        let serverShared: Data
        do {
            serverShared = try Keyring(serialized: Array(server.keyring)).sharedSlotsDigest
        } catch let error as MedVaultError {
            // Not a keyring this build reads: publish over it only a change of this device.
            guard changedHere else { return .notAdopted(error.code) }
            return try await publish(local, over: server, credentials)
        }
        if localShared == serverShared {
            if mark.generation != server.generation || mark.sha256 != localShared {
                try await remember(generation: server.generation, digest: localShared)
            }
            return .unchanged
        }
        if changedHere || (mark.sha256 != nil && server.generation <= mark.generation) {
            return try await publish(local, over: server, credentials)
        }
        let adopted: Data
        do {
            adopted = try await vault.adoptSyncedKeyring(server.keyring, replacingSharedSlots: localShared)
        } catch let error as MedVaultError
            where [.conflict, .corrupted, .schemaTooNew, .invalidArgument].contains(error.code)
        {
            return .notAdopted(error.code)
        }
        try await remember(generation: server.generation, digest: adopted)
        return .adopted
    }

    /// Publishes `local` with a compare-and-swap on the generation `server` was read at.
    private func publish(_ local: Keyring, over server: SyncKeyringBlob,
                         _ credentials: SyncCredentials) async throws -> SyncKeyringOutcome {
        // A generation that cannot grow leaves nothing to publish over: records still sync.
        guard server.generation < .max else { return .notAdopted(.badResponse) }
        let published = try await transport.putKeyring(
            try SyncKeyringUpdate(expectedGeneration: server.generation,
                                  keyring: try SyncKeyringBlob(generation: server.generation + 1,
                                                               keyring: Data(local.serialized()))),
            as: credentials)
        try await remember(generation: published.generation, digest: local.sharedSlotsDigest)
        return .published
    }

    private func remember(generation: Int64, digest: Data) async throws {
        try await vault.database.write { db in
            try SyncStateStore.setKeyringMark(generation: generation, sha256: digest, db)
        }
    }
}
