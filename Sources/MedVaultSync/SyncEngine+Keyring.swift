import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

extension SyncEngine {
    /// Brings the keyring's shared slots (password, recovery) in line with the server's,
    /// once per sync. A device's own database key and platform slots never travel: a
    /// keyring is published whole, sealed under the vault's sync secret
    /// (``SealedKeyring``), but the others take only its shared slots
    /// (`Vault.adoptSyncedKeyring`), and a change to those alone (a rotation) is not
    /// published.
    ///
    /// - Shared slots equal to the server's: nothing to do (the marks are brought up to date).
    /// - This device's shared slots changed since they were last published or adopted (a
    ///   password change, a new recovery key; never when nothing was published or adopted
    ///   here yet, as on a device that just joined): this keyring is published with a
    ///   compare-and-swap on the generation just read (the newest local change wins over
    ///   one published meanwhile; the other device adopts it at its next sync).
    /// - The server's keyring is not newer than the one this device last published or
    ///   adopted, yet its slots differ: the server went back (restored from a backup) or
    ///   relabels an old keyring under a higher generation of its own. For a sealed
    ///   keyring "newer" is its authenticated counter, which only the devices raise, so
    ///   the relabelling is caught. This device's keyring is published again rather than
    ///   the older password adopted.
    /// - Otherwise the server's shared slots are adopted, unless this device's changed
    ///   meanwhile. One this device cannot take (damaged, forged, another vault's, a
    ///   newer format, other cipher settings) is left alone, and records go on syncing.
    /// - A keyring an earlier build published in the clear is sealed and published over
    ///   (after being adopted if newer); the first device to do it creates the vault's
    ///   sync secret. A sealed keyring on a device that has no secret yet:
    ///   ``SyncKeyringOutcome/syncSecretNeeded`` (see ``adoptSyncSecret(_:)``).
    ///
    /// - Throws: Transport and storage errors.
    @discardableResult
    func syncKeyring(_ credentials: SyncCredentials) async throws -> SyncKeyringOutcome {
        let local = try KeyringFile.read(at: vault.layout.keyring)
        let localShared = local.sharedSlotsDigest
        let (mark, secret, counter) = try await vault.database.read { db in
            (try SyncStateStore.keyringMark(db), try SyncSecretRecord.secret(db), try SyncSecretRecord.keyringCounter(db))
        }
        let server = try await transport.keyring(as: credentials)
        // No mark: nothing was published or adopted here yet (a device that just joined,
        // a vault just restored), so nothing of this device's is waiting to be published:
        // its keyring may be older than the server's.
        let changedHere = mark.sha256.map { $0 != localShared } ?? false
        let base = Publication(server: server, counter: counter, credentials: credentials)
        let received: ReceivedKeyring
        do {
            guard let opened = try receive(server.keyring, secret: secret) else { return .syncSecretNeeded }
            received = opened
        } catch let error as MedVaultError where [.corrupted, .schemaTooNew, .wrongSyncSecret].contains(error.code) {
            // Not a keyring this device can read: publish over it only a change of this
            // device, and never over one sealed under another secret (the vault's, if this
            // device lost a race to seal it first: see `adoptSyncSecret(_:)`).
            guard changedHere, error.code != .wrongSyncSecret else { return .notAdopted(error.code) }
            return try await publish(local, base)
        }
        let inClear = received.counter == nil
        let publication = Publication(server: server, counter: max(counter, received.counter ?? 0), credentials: credentials)
        let serverShared = received.keyring.sharedSlotsDigest
        var outcome = SyncKeyringOutcome.unchanged
        var heldShared = localShared
        if localShared != serverShared {
            let wentBack = received.counter.map { $0 <= counter }
                ?? (mark.sha256 != nil && server.generation <= mark.generation)
            if changedHere || wentBack { return try await publish(local, publication) }
            do {
                heldShared = try await vault.adoptSyncedKeyring(received.keyring, replacingSharedSlots: localShared)
            } catch let error as MedVaultError
                where [.conflict, .corrupted, .schemaTooNew, .invalidArgument].contains(error.code)
            {
                return .notAdopted(error.code)
            }
            outcome = .adopted
        }
        if inClear {
            // Sealed from now on, with the adopted slots if they were newer.
            let published = try await publish(try KeyringFile.read(at: vault.layout.keyring), publication)
            return outcome == .adopted ? .adopted : published
        }
        if mark.generation != server.generation || mark.sha256 != heldShared || counter != publication.counter {
            try await remember(generation: server.generation, digest: heldShared, counter: publication.counter)
        }
        return outcome
    }

    /// The server's keyring and its counter (`nil` for one published in the clear by an
    /// earlier build), or `nil` when it is sealed and this device has no sync secret.
    private func receive(_ bytes: Data, secret: SyncSecret?) throws -> ReceivedKeyring? {
        let keyring: Keyring
        var counter: UInt64?
        if SealedKeyring.isSealed(bytes) {
            guard let secret else { return nil }
            let sealed = try SealedKeyring(opening: bytes, secret: secret)
            keyring = sealed.keyring
            counter = sealed.counter
        } else {
            keyring = try Keyring(serialized: Array(bytes))
        }
        guard keyring.vaultID == vault.vaultID else {
            throw MedVaultError(.corrupted, reason: "the synced keyring belongs to another vault")
        }
        return ReceivedKeyring(keyring: keyring, counter: counter)
    }

    /// Seals `local` with the next counter and publishes it with a compare-and-swap on
    /// the generation the server's keyring was read at.
    private func publish(_ local: Keyring, _ publication: Publication) async throws -> SyncKeyringOutcome {
        // A generation or counter that cannot grow leaves nothing to publish over: records still sync.
        guard publication.server.generation < .max, publication.counter < UInt64(Int64.max) else {
            return .notAdopted(.badResponse)
        }
        let secret = try await ensureSyncSecret()
        let counter = publication.counter + 1
        let sealed = try SealedKeyring.seal(local, counter: counter, secret: secret)
        let published = try await transport.putKeyring(
            try SyncKeyringUpdate(expectedGeneration: publication.server.generation,
                                  keyring: try SyncKeyringBlob(generation: publication.server.generation + 1, keyring: sealed)),
            as: publication.credentials)
        try await remember(generation: published.generation, digest: local.sharedSlotsDigest, counter: counter)
        return .published
    }

    /// This device's sync secret; a new one is stored (durably, before anything is sealed
    /// under it) when it has none.
    func ensureSyncSecret() async throws -> SyncSecret {
        try await vault.database.write { db in
            if let existing = try SyncSecretRecord.secret(db) { return existing }
            let secret = SyncSecret.generate()
            try SyncSecretRecord.setSecret(secret, db)
            return secret
        }
    }

    private func remember(generation: Int64, digest: Data, counter: UInt64) async throws {
        try await vault.database.write { db in
            try SyncStateStore.setKeyringMark(generation: generation, sha256: digest, db)
            try SyncSecretRecord.raiseKeyringCounter(to: counter, db)
        }
    }

    /// The server's keyring as read, and the counter a publication starts from.
    private struct Publication {
        let server: SyncKeyringBlob
        let counter: UInt64
        let credentials: SyncCredentials
    }

    private struct ReceivedKeyring {
        let keyring: Keyring
        let counter: UInt64?
    }
}
