import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Sync epochs (docs/sync.md, "Epochs"): each device's own certified key, a revocation
/// that starts a new epoch of keys the revoked device never receives, and the adoption of
/// an epoch another device started.
extension SyncEngine {
    /// Revokes a device of the vault and starts the vault's next sync epoch without it
    /// (``revoke(devices:)``).
    ///
    /// - Throws: As ``revoke(devices:)``.
    public func revoke(device: UUID) async throws {
        try await revoke(devices: [device])
    }

    /// Revokes devices of the vault and starts its next sync epoch without them: new
    /// envelope and authority keys from a new random epoch key, and a new sync secret,
    /// sealed to every remaining device's own key (certified by the current epoch's key)
    /// and signed by this device's. The server, in one step, stops the revoked devices'
    /// tokens, replaces its verification key (a proof made with anything a revoked device
    /// holds no longer joins), the certificates, the keyring (now sealed under the new
    /// secret) and the epoch keys it keeps for the recovery kit.
    ///
    /// A revoked device, even with the vault key, its files, the password and the former
    /// sync secret, opens nothing sealed afterwards and cannot join again. The vault's
    /// recovery kit changes: show the new ``syncSecret()`` for the user to write down.
    ///
    /// - Throws: `validation` (field `devices`) for an empty set or one naming this device;
    ///   `notFound` when one is not an active device of the vault; `conflict` when another
    ///   active device has not certified its key yet (it has not synced with this version:
    ///   let it sync once, or revoke it too; see ``SyncDevice/isCertified``) or the epoch
    ///   or keyring moved meanwhile (call again); `corrupted` when the server's list of
    ///   this device does not verify; transport errors. Nothing changes then.
    public func revoke(devices targets: Set<UUID>) async throws {
        guard !targets.isEmpty else { throw MedVaultError(.validation, field: "devices", reason: "name a device to revoke") }
        try await authenticated { credentials in
            guard !targets.contains(credentials.deviceID) else {
                throw MedVaultError(.validation, field: "devices", reason: "a device is revoked by another device")
            }
            try await startEpoch(revoking: targets, credentials)
        }
    }

    private func startEpoch(revoking targets: Set<UUID>, _ credentials: SyncCredentials) async throws {
        // The keyring and any epoch another device started are brought in line first: a
        // password change published elsewhere is not overwritten, and this epoch follows
        // the newest.
        try await syncKeyring(credentials)
        try await ensureCertified(credentials)
        let server = try await transport.keyring(as: credentials)
        let list = try await transport.devices(as: credentials)
        let vaultID = vault.vaultID
        let (epoch, counter, heldKeys, deviceKey, firstEpoch) = try await vault.database.write { db in
            (try SyncEpochRecord.currentEpoch(db), try SyncSecretRecord.keyringCounter(db),
             try SyncEpochRecord.epochKeys(db), try SyncEpochRecord.deviceKeyCreatingIfNeeded(db),
             try SyncEpochRecord.firstEpoch(db))
        }
        defer { for key in heldKeys.values { key.wipe() } }
        guard (list.epoch ?? 0) == epoch, epoch < UInt32.max, server.generation < .max, counter < UInt64(Int64.max) else {
            throw MedVaultError(.conflict, reason: "the vault's sync epoch moved; revoke again")
        }
        let active = list.devices.filter { !$0.revoked }
        guard targets.isSubset(of: Set(active.map(\.deviceID))) else {
            throw MedVaultError(.notFound, reason: "the vault has no such active device")
        }
        let remaining = active.filter { !targets.contains($0.deviceID) }
        // Two devices with one key (a copied vault that kept the other's): a package sealed
        // to one would open on the other, revoked or not.
        let keys = active.compactMap { $0.certificate.map { [$0.signingKey, $0.boxKey] } }.flatMap { $0 }
        guard Set(keys).count == keys.count else {
            throw MedVaultError(.conflict, reason: """
                two devices of the vault are listed with one key (a copy, or a forged list): nothing is re-keyed
                """)
        }
        let newEpoch = epoch + 1
        let newKey = SecureBytes.random(count: SyncKeys.epochKeyLength)
        defer { newKey.wipe() }
        let secret = SyncSecret.generate()
        let local = try await vault.keyringForPublication(try KeyringFile.read(at: vault.layout.keyring))
        let keyring = try MedVaultError.fromWire {
            try SyncKeyringUpdate(
                expectedGeneration: server.generation,
                keyring: try SyncKeyringBlob(generation: server.generation + 1,
                                             keyring: try SealedKeyring.seal(local, counter: counter + 1, secret: secret)))
        }
        let epochKeys = try await vault.sealEpochKeys(heldKeys.merging([newEpoch: newKey]) { held, _ in held },
                                                      firstEpoch: firstEpoch, secret: secret)
        let me = credentials.deviceID
        let request = try await vault.withSyncKeyChain(adding: [newEpoch: newKey]) { chain -> SyncRekeyRequest in
            let old = try chain.keys(epoch: epoch)
            let new = try chain.keys(epoch: newEpoch)
            let oldAuthority = try old.deviceSigningPublicKey()
            var certificates: [SyncDeviceCertificate] = []
            var packages: [SyncRekeyPackage] = []
            var signer: SyncDeviceCertificate?
            let payload = try Self.packagePayload(vaultID: vaultID, epoch: newEpoch, key: newKey, secret: secret)
            defer { payload.wipe() }
            for device in remaining {
                guard let certificate = device.certificate,
                      Self.certifies(certificate, device: device.deviceID, epoch: epoch, vaultID: vaultID,
                                     authority: oldAuthority) else {
                    throw device.deviceID == me
                        ? MedVaultError(.corrupted, reason: "the server's certificate of this device does not verify")
                        : MedVaultError(.conflict, reason: """
                            another device has not certified its key with this version yet: let it sync once, or revoke it too
                            """)
                }
                if device.deviceID == me { signer = certificate }
                let message = SyncDeviceCertificate.message(vaultID: vaultID, deviceID: device.deviceID, epoch: newEpoch,
                                                            signingKey: certificate.signingKey, boxKey: certificate.boxKey)
                certificates.append(try MedVaultError.fromWire {
                    try SyncDeviceCertificate(
                        deviceID: device.deviceID, epoch: newEpoch, signingKey: certificate.signingKey,
                        boxKey: certificate.boxKey, signature: Data(try new.signForDevice(Array(message))))
                })
                let sealed = Data(try SyncDeviceKey.seal(payload, to: Array(certificate.boxKey)))
                let signature = try deviceKey.sign(Array(SyncRekeyPackage.message(
                    vaultID: vaultID, epoch: newEpoch, deviceID: device.deviceID, sealed: sealed)))
                packages.append(try MedVaultError.fromWire {
                    try SyncRekeyPackage(deviceID: device.deviceID, sealed: sealed, signature: Data(signature))
                })
            }
            guard let signer else {
                throw MedVaultError(.corrupted, reason: "the server's list of devices lacks this device")
            }
            let verificationKey = Data(try new.deviceSigningPublicKey())
            let authorization = try old.signForDevice(Array(SyncRekeyRequest.authorizationMessage(
                vaultID: vaultID, epoch: newEpoch, verificationKey: verificationKey, revoked: Array(targets), signer: me)))
            return try MedVaultError.fromWire {
                try SyncRekeyRequest(epoch: newEpoch, verificationKey: verificationKey, revoked: Array(targets),
                                     certificates: certificates, packages: packages, signerCertificate: signer,
                                     keyring: keyring, epochKeys: epochKeys, authorization: Data(authorization))
            }
        }
        // This device's own package is on the server too: a crash before the next lines is
        // repaired by adopting it at the next sync; a lost answer, at once.
        do {
            try await transport.startEpoch(request, as: credentials)
        } catch {
            guard (try? await transport.keyring(as: credentials).epoch) == newEpoch,
                  (try? await adoptEpochs(credentials, through: newEpoch)) == true,
                  try await syncSecret() == secret else { throw error }
            return
        }
        try await keep(epoch: newEpoch, key: newKey, secret: secret) { db in
            try SyncSecretRecord.raiseKeyringCounter(to: counter + 1, db)
            try SyncStateStore.setKeyringMark(generation: server.generation + 1, sha256: local.sharedSlotsDigest, db)
        }
    }

    /// Adopts the epochs another device started, up to `target`: for each, this device's
    /// package is fetched, its starter's certificate checked against the epoch before
    /// (which this device holds), the package's signature against that certificate's key,
    /// then it is opened with this device's own key.
    ///
    /// - Returns: Whether this device now holds `target`; `false` when the server has not
    ///   reached it (an envelope naming a later epoch is then forged).
    /// - Throws: `unauthorized` when the server has no package for this device (it was
    ///   revoked, or never certified its key before the epoch started: join again with the
    ///   recovery kit); `corrupted` for a package or certificate that does not verify or
    ///   open; transport errors.
    func adoptEpochs(_ credentials: SyncCredentials, through target: UInt32) async throws -> Bool {
        var current = try await vault.database.read { db in try SyncEpochRecord.currentEpoch(db) }
        let vaultID = vault.vaultID
        while current < target {
            let epoch = current + 1
            let package: SyncEpochPackage
            do {
                package = try await transport.epochPackage(epoch: epoch, as: credentials)
            } catch let error as MedVaultError where error.code == .notFound {
                guard try await (transport.keyring(as: credentials).epoch ?? 0) >= epoch else { return false }
                throw MedVaultError(.unauthorized, reason: """
                    this device was not given the keys of the vault's new sync epoch: it was revoked, or join again with the recovery kit
                    """)
            }
            guard let deviceKey = try await vault.database.read({ db in try SyncEpochRecord.deviceKey(db) }) else {
                throw MedVaultError(.unauthorized, reason: "this device has no key of its own to open a new sync epoch with")
            }
            let previous = current
            let (key, secret) = try await vault.withSyncKeyChain { chain -> (SecureBytes, SyncSecret) in
                let authority = try chain.keys(epoch: previous).deviceSigningPublicKey()
                let signer = package.signerCertificate
                let message = SyncRekeyPackage.message(vaultID: vaultID, epoch: epoch, deviceID: credentials.deviceID,
                                                       sealed: package.package.sealed)
                guard package.epoch == epoch, package.package.deviceID == credentials.deviceID,
                      Self.certifies(signer, device: signer.deviceID, epoch: previous, vaultID: vaultID, authority: authority),
                      SyncDeviceKey.verify(Array(package.package.signature), of: Array(message), by: Array(signer.signingKey))
                else {
                    throw MedVaultError(.corrupted, reason: "a new sync epoch's package is not signed by a certified device")
                }
                let opened = try deviceKey.open(Array(package.package.sealed))
                defer { opened.wipe() }
                return try Self.openPackagePayload(opened, vaultID: vaultID, epoch: epoch)
            }
            defer { key.wipe() }
            try await keep(epoch: epoch, key: key, secret: secret) { db in try SyncSecretRecord.setSealedKeyringSeen(db) }
            current = epoch
        }
        return true
    }

    /// Keeps a new epoch's key and sync secret, re-seals the outbox under it and marks this
    /// device certified in it, in one transaction — unless a later epoch is held already
    /// (another pass adopted it meanwhile): the secret never goes back.
    private func keep(epoch: UInt32, key: SecureBytes, secret: SyncSecret,
                      also: @escaping @Sendable (DatabaseConnection) throws -> Void) async throws {
        let database = vault.database
        try await vault.withSyncKeyChain(adding: [epoch: key]) { chain in
            try await database.write(duration: .long) { db in
                guard try SyncEpochRecord.currentEpoch(db) < epoch else { return }
                try SyncEpochRecord.addEpochKeys([epoch: key], db)
                try SyncSecretRecord.setSecret(secret, confirmed: true, db)
                try SyncEpochRecord.setCertifiedEpoch(epoch, db)
                try also(db)
                try Self.reseal(chain, db)
            }
        }
    }

    /// Stores this device's certificate of the current epoch at the server when it has not
    /// yet (a device of an earlier build at its first sync, a device that made its key
    /// after the epoch started). A transport or server without epochs is left alone.
    func ensureCertified(_ credentials: SyncCredentials) async throws {
        // A read on every pass; the write (a key made) only when there is something to certify.
        let (certified, current) = try await vault.database.read { db in
            (try SyncEpochRecord.certifiedEpoch(db), try SyncEpochRecord.currentEpoch(db))
        }
        guard certified != current else { return }
        let deviceKey = try await vault.database.write { db in try SyncEpochRecord.deviceKeyCreatingIfNeeded(db) }
        let vaultID = vault.vaultID
        let deviceID = credentials.deviceID
        let certificate = try await vault.withSyncKeyChain { chain in
            try Self.certificate(of: deviceKey, deviceID: deviceID, vaultID: vaultID, keys: try chain.keys(epoch: current))
        }
        do {
            try await transport.certify(certificate, as: credentials)
        } catch let error as MedVaultError where [.invalidArgument, .notFound, .unauthorized].contains(error.code) {
            // A transport or a server before epochs; or the epoch moved since it was read
            // (the next pass adopts it and certifies again): records still sync.
            return
        }
        try await vault.database.write { db in try SyncEpochRecord.setCertifiedEpoch(current, db) }
    }

    /// Re-seals the outbox envelopes sealed in an earlier epoch under the current one, each
    /// under a new id derived from its old one and the epoch (the server may hold the old
    /// id already, from a push whose answer was lost: the receivers then refuse the second
    /// copy as a replay of its device number).
    ///
    /// - Returns: Whether any envelope was re-sealed.
    @discardableResult
    func resealOutbox() async throws -> Bool {
        let database = vault.database
        // Through the index on the epoch: no ciphertext is read when nothing is stale.
        let stale = try await database.read { db in
            try db.fetchOne("SELECT 1 FROM sync_outbox WHERE epoch <> ? LIMIT 1",
                            [.integer(Int64(try SyncEpochRecord.currentEpoch(db)))]) { $0.int64(at: 0) } != nil
        }
        guard stale else { return false }
        try await vault.withSyncKeyChain { chain in
            try await database.write(duration: .long) { db in try Self.reseal(chain, db) }
        }
        return true
    }

    /// Re-seals, a page of rows at a time, the outbox envelopes of another epoch than
    /// `chain`'s current one.
    static func reseal(_ chain: SyncKeyChain, _ db: DatabaseConnection) throws {
        var after: Int64 = 0
        while true {
            let rows = try SyncStateStore.outbox(after: after, notOfEpoch: chain.epoch, limit: 64, db)
            guard let last = rows.last else { return }
            after = last.position
            for row in rows {
                let old = try chain.keys(epoch: row.epoch)
                let recordKey = Array(row.recordKey)
                let plaintext = try old.open(Array(row.ciphertext), associatedData: EnvelopeSealer.associatedData(
                    vaultID: old.vaultID, epoch: row.epoch, envelopeID: row.id, recordKey: recordKey))
                let id = try AttachmentChunkRecord.derivedUUID(keys: chain.current,
                                                               label: "medvault.reseal.\(chain.epoch)", row.id)
                let sealed = try chain.current.seal(plaintext, associatedData: EnvelopeSealer.associatedData(
                    vaultID: old.vaultID, epoch: chain.epoch, envelopeID: id, recordKey: recordKey))
                try SyncStateStore.replaceInOutbox(row, id: id, ciphertext: Data(sealed), epoch: chain.epoch, db)
            }
        }
    }

    // MARK: - Certificates and packages

    /// `deviceKey`'s public keys certified by `keys`' authority for `deviceID`.
    static func certificate(of deviceKey: SyncDeviceKey, deviceID: UUID, vaultID: UUID,
                            keys: SyncKeys) throws -> SyncDeviceCertificate {
        let signingKey = Data(try deviceKey.signingPublicKey())
        let boxKey = Data(try deviceKey.boxPublicKey())
        let message = SyncDeviceCertificate.message(vaultID: vaultID, deviceID: deviceID, epoch: keys.epoch,
                                                    signingKey: signingKey, boxKey: boxKey)
        return try MedVaultError.fromWire {
            try SyncDeviceCertificate(deviceID: deviceID, epoch: keys.epoch, signingKey: signingKey, boxKey: boxKey,
                                      signature: Data(try keys.signForDevice(Array(message))))
        }
    }

    static let packageLabel = Array("MVEPKG01".utf8)
    static let packagePayloadLength = 8 + 16 + 4 + SyncKeys.epochKeyLength + 16

    /// `MVEPKG01` ‖ vault id ‖ epoch (u32) ‖ epoch key (32) ‖ sync secret (16), in secure memory.
    static func packagePayload(vaultID: UUID, epoch: UInt32, key: SecureBytes, secret: SyncSecret) throws -> SecureBytes {
        var header = packageLabel
        withUnsafeBytes(of: vaultID.uuid) { header += $0 }
        withUnsafeBytes(of: epoch.bigEndian) { header += $0 }
        return try header.withUnsafeBytes { headerBytes in
            try key.withUnsafeBytes { keyBytes in
                try secret.withStoredBytes { secretBytes in SecureBytes(concatenating: [headerBytes, keyBytes, secretBytes]) }
            }
        }
    }

    /// The epoch key and sync secret of a package payload for `vaultID` and `epoch`.
    ///
    /// - Throws: `corrupted` for any other payload.
    static func openPackagePayload(_ payload: SecureBytes, vaultID: UUID, epoch: UInt32) throws -> (SecureBytes, SyncSecret) {
        try payload.withUnsafeBytes { bytes in
            var header = packageLabel
            withUnsafeBytes(of: vaultID.uuid) { header += $0 }
            withUnsafeBytes(of: epoch.bigEndian) { header += $0 }
            guard bytes.count == packagePayloadLength, Array(bytes.prefix(header.count)) == header else {
                throw MedVaultError(.corrupted, reason: "a new sync epoch's package is for another vault or epoch")
            }
            let keyEnd = header.count + SyncKeys.epochKeyLength
            let key = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[header.count..<keyEnd]))
            let secret = try SyncSecret(storedBytes: UnsafeRawBufferPointer(rebasing: bytes[keyEnd...]))
            return (key, secret)
        }
    }
}
