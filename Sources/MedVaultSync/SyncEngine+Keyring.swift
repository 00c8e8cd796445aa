import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

extension SyncEngine {
    /// The largest step a sealed keyring's counter may take past this device's: each
    /// publication adds 1, so a larger jump is a secret holder trying to push the counter
    /// to its end (no device could publish after it). Such a keyring is refused.
    static let maximumKeyringCounterStep: UInt64 = 1 << 20

    /// Brings the keyring's shared slots (password, recovery) in line with the server's,
    /// once per sync. A device's own database key and platform slots never travel: a
    /// keyring is published whole, sealed under the vault's sync secret
    /// (``SealedKeyring``), but the others take only its shared slots
    /// (`Vault.adoptSyncedKeyring`), and a change to those alone (a rotation) is not
    /// published. The rules, in docs/sync.md ("Keyring"):
    ///
    /// - A sealed keyring that opens with this device's secret confirms the secret. Equal
    ///   shared slots: nothing to do. This device's slots changed since it last published
    ///   or adopted: it publishes (compare-and-swap on the generation just read). The
    ///   server's counter not past this device's: the server went back or relabels an old
    ///   keyring, so this device publishes again instead of adopting. Otherwise the
    ///   server's slots are adopted (unless they ask more Argon2 work than this device
    ///   accepts, or changed here meanwhile).
    /// - A sealed keyring that does not open (another secret, damaged, forged, a counter
    ///   past its limit): with no secret here, or one never confirmed (this device lost a
    ///   race to seal first, or its register fell back to a join),
    ///   ``SyncKeyringOutcome/syncSecretNeeded`` (the unconfirmed secret is kept, never
    ///   shown nor trusted); with a confirmed secret, this device's keyring is sealed
    ///   over it. A newer format is left alone.
    /// - A keyring in the clear (published by a build before the sync secret) is taken
    ///   only by a device that has no confirmed secret and never saw a sealed keyring: it
    ///   adopts it when newer by generation (the only order such a keyring has), creates
    ///   the vault's secret (or uses the one its register made) and seals. Any other
    ///   device treats it as a rollback and seals its own over it, never adopting it.
    /// - Bytes that are no keyring of this vault: sealed over by a device with a confirmed
    ///   secret; left alone otherwise.
    ///
    /// - Throws: Transport and storage errors.
    @discardableResult
    func syncKeyring(_ credentials: SyncCredentials) async throws -> SyncKeyringOutcome {
        // The database's marks first, then the file: an adoption by another engine on this
        // vault in between then shows as a change here, whose publication is its newer slots.
        let (mark, stored, counter, sealedSeen) = try await vault.database.read { db in
            (try SyncStateStore.keyringMark(db), try SyncSecretRecord.secret(db), try SyncSecretRecord.keyringCounter(db),
             try SyncSecretRecord.sealedKeyringSeen(db))
        }
        let local = try KeyringFile.read(at: vault.layout.keyring)
        let localShared = local.sharedSlotsDigest
        let server = try await transport.keyring(as: credentials)
        // A new epoch another device started comes with a new sync secret, under which the
        // keyring is now sealed: adopted first, then the keyring is judged again with it.
        if let epoch = server.epoch, epoch > 0,
           epoch > (try await vault.database.read { db in try SyncEpochRecord.currentEpoch(db) }) {
            _ = try await adoptEpochs(credentials, through: epoch)
            return try await syncKeyring(credentials)
        }
        // No mark: nothing was published or adopted here yet (a device that just joined,
        // a vault just restored), so nothing of this device's is waiting to be published.
        let changedHere = mark.sha256.map { $0 != localShared } ?? false
        let confirmed = stored?.confirmed == true ? stored?.secret : nil
        let base = Publication(server: server, counter: counter, credentials: credentials)

        guard SealedKeyring.isSealed(server.keyring) else {
            guard let clear = try? Keyring(serialized: Array(server.keyring)), clear.vaultID == vault.vaultID else {
                // No keyring of this vault (damaged, forged): a device that holds the secret seals over it.
                guard let confirmed else { return .notAdopted(.corrupted) }
                return try await publish(local, base, secret: confirmed)
            }
            guard confirmed == nil, counter == 0, !sealedSeen else {
                // A device that knows sealed keyrings never goes back to one in the clear.
                guard let confirmed else { return .syncSecretNeeded }
                return try await publish(local, base, secret: confirmed)
            }
            return try await upgrade(from: clear, local: local, mark: mark, changedHere: changedHere, base)
        }
        if !sealedSeen { try await vault.database.write { db in try SyncSecretRecord.setSealedKeyringSeen(db) } }
        guard let stored else { return .syncSecretNeeded }
        let sealed: SealedKeyring
        do {
            sealed = try SealedKeyring(opening: server.keyring, secret: stored.secret)
        } catch let error as MedVaultError where error.code == .schemaTooNew {
            // A later format, from a newer build of another device: left alone.
            return .notAdopted(error.code)
        } catch let error as MedVaultError where [.wrongSyncSecret, .corrupted].contains(error.code) {
            // Not openable with this device's secret (another secret, damaged, forged, a
            // counter past its limit). An unconfirmed secret is kept but not trusted: the
            // app gives the vault's with `adoptSyncSecret(_:)`. A confirmed one seals over.
            guard let confirmed else { return error.code == .wrongSyncSecret ? .syncSecretNeeded : .notAdopted(error.code) }
            return try await publish(local, base, secret: confirmed)
        }
        let secret = stored.secret
        if !stored.confirmed {
            try await vault.database.write { db in try SyncSecretRecord.confirm(secret, db) }
        }
        guard sealed.vaultID == vault.vaultID,
              sealed.counter <= counter || sealed.counter - counter <= Self.maximumKeyringCounterStep else {
            return .notAdopted(.corrupted)
        }
        let publication = Publication(server: server, counter: max(counter, sealed.counter), credentials: credentials)
        var heldShared = localShared
        var outcome = SyncKeyringOutcome.unchanged
        if localShared != sealed.keyring.sharedSlotsDigest {
            // Not past this device's counter: the server went back, or relabels an old keyring.
            if changedHere || sealed.counter <= counter { return try await publish(local, publication, secret: secret) }
            do {
                heldShared = try await vault.adoptSyncedKeyring(sealed.keyring, replacingSharedSlots: localShared)
            } catch let error as MedVaultError
                where [.conflict, .corrupted, .schemaTooNew, .invalidArgument].contains(error.code)
            {
                return .notAdopted(error.code)
            }
            outcome = .adopted
        }
        if mark.generation != server.generation || mark.sha256 != heldShared || counter != publication.counter {
            try await remember(generation: server.generation, digest: heldShared, counter: publication.counter)
        }
        return outcome
    }

    /// The first sync of a device from before the sync secret, over a keyring in the
    /// clear: adopt it if newer (by the server's generation), then create the vault's
    /// secret and seal.
    private func upgrade(from clear: Keyring, local: Keyring, mark: (generation: Int64, sha256: Data?),
                         changedHere: Bool, _ base: Publication) async throws -> SyncKeyringOutcome {
        var adopted = false
        let localShared = local.sharedSlotsDigest
        if localShared != clear.sharedSlotsDigest, !changedHere,
           mark.sha256 == nil || base.server.generation > mark.generation {
            do {
                _ = try await vault.adoptSyncedKeyring(clear, replacingSharedSlots: localShared)
                adopted = true
            } catch let error as MedVaultError
                where [.conflict, .corrupted, .schemaTooNew, .invalidArgument].contains(error.code)
            {
                return .notAdopted(error.code)
            }
        }
        let secret = try await createSyncSecret()
        let published = try await publish(try KeyringFile.read(at: vault.layout.keyring), base, secret: secret)
        return adopted ? .adopted : published
    }

    /// Seals `local` with the next counter and publishes it with a compare-and-swap on
    /// the generation the server's keyring was read at; a successful publication confirms
    /// the secret.
    private func publish(_ local: Keyring, _ publication: Publication, secret: SyncSecret) async throws -> SyncKeyringOutcome {
        // A generation or counter that cannot grow leaves nothing to publish over: records still sync.
        guard publication.server.generation < .max, publication.counter < UInt64(Int64.max) else {
            return .notAdopted(.badResponse)
        }
        let counter = publication.counter + 1
        let sealed = try SealedKeyring.seal(try await vault.keyringForPublication(local), counter: counter, secret: secret)
        let published: SyncKeyringBlob
        do {
            published = try await transport.putKeyring(
                try MedVaultError.fromWire {
                    try SyncKeyringUpdate(expectedGeneration: publication.server.generation,
                                          keyring: try SyncKeyringBlob(generation: publication.server.generation + 1, keyring: sealed))
                },
                as: publication.credentials)
        } catch let error as MedVaultError where error.code == .conflict {
            // Another device published meanwhile: the next sync reads it and decides again;
            // records sync now.
            return .notAdopted(.conflict)
        }
        try await remember(generation: published.generation, digest: local.sharedSlotsDigest, counter: counter, confirming: secret)
        return .published
    }

    /// A new sync secret for this vault, stored (durably, unconfirmed) before anything is
    /// sealed under it; an unconfirmed one already stored is kept (a register retried).
    func createSyncSecret() async throws -> SyncSecret {
        try await vault.database.write { db in
            if let existing = try SyncSecretRecord.secret(db) { return existing.secret }
            let secret = SyncSecret.generate()
            try SyncSecretRecord.setSecret(secret, confirmed: false, db)
            return secret
        }
    }

    private func remember(generation: Int64, digest: Data, counter: UInt64, confirming secret: SyncSecret? = nil) async throws {
        try await vault.database.write { db in
            try SyncStateStore.setKeyringMark(generation: generation, sha256: digest, db)
            try SyncSecretRecord.raiseKeyringCounter(to: counter, db)
            if let secret { try SyncSecretRecord.confirm(secret, db) }
        }
    }

    /// The server's keyring as read, and the counter a publication starts from.
    private struct Publication {
        let server: SyncKeyringBlob
        let counter: UInt64
        let credentials: SyncCredentials
    }
}
