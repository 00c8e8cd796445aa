import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Issue #31, item 4: every push is signed by its device's certified key, and a receiver
/// takes an envelope of epoch 1 or later only from a push its sealed author signed; and
/// the epochs along the server's sequence never go down.
@Suite("Sync: signed pushes and epochs that never go back", .timeLimit(.minutes(2)))
struct SyncSignedPushTests {
    /// A deletion of `patient` sealed in `author`'s name by the holder of `keys` (device B,
    /// which holds the epoch's keys), one clock tick after the version `vault` holds.
    static func forged(_ patient: Patient, author: UUID, keys: SyncKeys, vault: Vault) async throws -> SyncEnvelope {
        let base = try await vault.database.read { db in try SyncStateStore.clock(.patient, patient.id, db) }
        let record = SyncRecord(table: "patient", recordID: patient.id, version: 2, operation: "delete",
                                timestamp: UInt64(try #require(base).timestamp + 1), deviceID: author, state: nil,
                                baseTimestamp: base.map { UInt64($0.timestamp) }, baseDeviceID: base?.deviceID,
                                deviceSequence: 1_000)
        return try EnvelopeSealer(keys: keys).seal(record)
    }

    @Test("B seals a change in A's name: the server refuses it unsigned or signed as A with B's key; stored anyway by the operator, or signed by B, C refuses it and keeps A's version")
    func forgedAuthorIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let ana = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            let aID = try #require(try await devices.engines[0].credentials()).deviceID
            let bCredentials = try #require(try await devices.engines[1].credentials())
            let vaultID = devices.vaults[0].vaultID
            let list = try await devices.server.devices(as: bCredentials)
            let aCertificate = try #require(list.devices.first { $0.deviceID == aID }?.certificate)
            let bKey = try #require(try await devices.vaults[1].database.read { db in try SyncEpochRecord.deviceKey(db) })
            let bCertificate = try #require(list.devices.first { $0.deviceID == bCredentials.deviceID }?.certificate)

            let bVault = devices.vaults[1]
            let attempts: [(SyncEnvelope, SyncPushSignature?)] = try await bVault.withSyncKeyChain { chain in
                let unsigned = try await Self.forged(ana, author: aID, keys: chain.current, vault: bVault)
                let asA = try await Self.forged(ana, author: aID, keys: chain.current, vault: bVault)
                let byB = try await Self.forged(ana, author: aID, keys: chain.current, vault: bVault)
                // Signed "as A": A's certificate, B's signature.
                let claimed = try PushSignatures.sign([asA], vaultID: vaultID, deviceKey: bKey, certificate: bCertificate)
                let asASignature = try SyncPushSignature(signer: aID, epoch: claimed.epoch, entries: claimed.entries,
                                                         certificate: aCertificate, signature: claimed.signature)
                return [(unsigned, nil), (asA, asASignature),
                        (byB, try PushSignatures.sign([byB], vaultID: vaultID, deviceKey: bKey, certificate: bCertificate))]
            }
            // The honest server stores neither of the first two; a hostile one does.
            for (envelope, signature) in attempts.prefix(2) {
                await expectMedVaultError(.validation) {
                    try await devices.server.push(SyncPushRequest(envelopes: [envelope], signature: signature), as: bCredentials)
                }
                await devices.server.inject(envelope, signature: signature, from: aID, vaultID: vaultID)
            }
            _ = try await devices.server.push(SyncPushRequest(envelopes: [attempts[2].0], signature: attempts[2].1),
                                              as: bCredentials)
            let result = try await devices.engines[2].sync()
            #expect(result.errors.count == 3)
            #expect(result.errors.allSatisfy { $0.code == .corrupted })
            #expect(result.errors.prefix(2).allSatisfy { $0.reason.contains("signed") })
            #expect(try await devices.vaults[2].patients.get(ana.id).firstName == "Ana")
        }
    }

    @Test("An envelope of the epoch before, slipped in after the vault moved on (a revoked device with the operator's help), is refused")
    func envelopeOfAnEpochLeftIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let ana = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            let bCredentials = try #require(try await devices.engines[1].credentials())
            let bKey = try #require(try await devices.vaults[1].database.read { db in try SyncEpochRecord.deviceKey(db) })
            let vaultID = devices.vaults[0].vaultID
            // B prepares a signed change of epoch 1 before it is revoked.
            let bVault = devices.vaults[1]
            let (envelope, signature) = try await bVault.withSyncKeyChain { chain in
                let envelope = try await Self.forged(ana, author: bCredentials.deviceID, keys: chain.current, vault: bVault)
                let certificate = try SyncEngine.certificate(of: bKey, deviceID: bCredentials.deviceID, vaultID: vaultID,
                                                             keys: chain.current)
                return (envelope, try PushSignatures.sign([envelope], vaultID: vaultID, deviceKey: bKey, certificate: certificate))
            }
            try await devices.engines[0].revoke(device: bCredentials.deviceID)
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Eva", "Sanz"))
            _ = try await devices.engines[0].sync()
            await devices.server.inject(envelope, signature: signature, from: bCredentials.deviceID, vaultID: vaultID)

            let result = try await devices.engines[2].sync()
            #expect(result.errors.map(\.code) == [.corrupted])
            #expect(result.errors.first?.reason.contains("epoch the vault has left") == true)
            #expect(try await devices.vaults[2].patients.get(ana.id).firstName == "Ana")
            #expect(try await devices.vaults[2].patients.count() == 2)
        }
    }

    @Test("A change sealed in the epoch before by a pass that read its keys just before another adopted the next is re-sealed at the next pass and arrives")
    func staleOutboxIsResealedAtTheNextPass() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            try await devices.syncAll()
            try await devices.engines[0].revoke(device: try #require(try await devices.engines[1].credentials()).deviceID)
            _ = try await devices.engines[2].devices() // C adopts epoch 2
            let cVault = devices.vaults[2]
            _ = try await cVault.patients.create(ClinicalFixtures.patient("Tarde", "Ruiz"))
            let cDevice = try #require(try await devices.engines[2].credentials()).deviceID
            _ = try await cVault.withSyncKeyChain { chain in
                try await cVault.database.write { db in
                    try PendingChangeSealer.sealPending(keys: try chain.keys(epoch: 1), localDevice: cDevice, db)
                }
            }
            #expect(try await cVault.database.read { db in try SyncStateStore.outbox(limit: 10, db).map(\.epoch) } == [1])
            let result = try await devices.engines[2].sync()
            #expect(result.uploaded == 1)
            _ = try await devices.engines[0].sync()
            #expect(try await devices.vaults[0].patients.list().patients.contains { $0.firstName == "Tarde" })
        }
    }

    @Test("A copy of a vault made before it registered falls back to joining when it registers: it takes the vault's epoch keys, not its own")
    func registerOfACopyJoins() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let creation = try await Vault.create(at: dir.file("original"), password: password, options: VaultFixtures.options)
            await creation.vault.lock()
            try FileManager.default.copyItem(at: dir.file("original"), to: dir.file("copy"))
            let server = InMemorySyncTransport()
            let original = try await Vault.open(at: dir.file("original"), password: password, options: VaultFixtures.options)
            defer { Task { await original.lock() } }
            try await SyncEngine(vault: original, transport: server).register()
            _ = try await original.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await SyncEngine(vault: original, transport: server).sync()

            let copy = try await Vault.open(at: dir.file("copy"), password: password, options: VaultFixtures.options)
            defer { Task { await copy.lock() } }
            let secret = try #require(try await SyncEngine(vault: original, transport: server).syncSecret())
            try await copy.database.write { db in try SyncSecretRecord.setSecret(secret, confirmed: true, db) }
            let engine = SyncEngine(vault: copy, transport: server)
            try await engine.register()
            _ = try await engine.sync()
            #expect(try await copy.patients.count() == 1)
        }
    }

    @Test("A vault restored from a backup taken before a revocation changed the secret: join says so, the new secret is adopted without a token, then it joins")
    func restoredBeforeARevocationJoinsWithTheNewSecret() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            let password = try VaultFixtures.password()
            try await devices.syncAll()
            try await devices.vaults[2].backup(to: dir.file("backup"))
            try await devices.engines[0].revoke(device: try #require(try await devices.engines[1].credentials()).deviceID)
            let newSecret = try #require(try await devices.engines[0].syncSecret())
            await devices.lockAll()
            try await Vault.restore(from: dir.file("backup"), to: dir.file("device-2"), password: password,
                                    options: VaultFixtures.options)
            let restored = try await Vault.open(at: dir.file("device-2"), password: password, options: VaultFixtures.options)
            defer { Task { await restored.lock() } }
            let engine = SyncEngine(vault: restored, transport: devices.server)
            await expectMedVaultError(.wrongSyncSecret) { try await engine.join() }
            await expectMedVaultError(.wrongSyncSecret) { try await engine.adoptSyncSecret(SyncSecret.generate()) }
            try await engine.adoptSyncSecret(newSecret)
            try await engine.join()
            #expect(try await engine.sync().errors.isEmpty)
        }
    }

    @Test("In a vault born with epochs, an envelope of epoch 0 (keys from the vault key alone, which a revoked device holds) served to a device that just joined is refused")
    func epochZeroIsForgedInAVaultBornWithEpochs() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let ana = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            let aID = try #require(try await devices.engines[0].credentials()).deviceID
            let bVault = devices.vaults[1]
            let forged = try await bVault.withSyncKeyChain { chain in
                try await Self.forged(ana, author: aID, keys: try chain.keys(epoch: 0), vault: bVault)
            }
            await devices.server.inject(forged, signature: nil, from: aID, vaultID: bVault.vaultID)
            // A third device joins with the recovery kit and clones: the forgery is refused.
            let blob = try await devices.server.recovery(vaultID: bVault.vaultID)
            let joined = try await Vault.join(at: dir.file("late"), keyring: blob.keyring.keyring,
                                              syncSecret: try #require(try await devices.engines[0].syncSecret()),
                                              password: try VaultFixtures.password(), options: VaultFixtures.options)
            defer { Task { await joined.lock() } }
            let engine = SyncEngine(vault: joined, transport: devices.server)
            try await engine.join()
            let result = try await engine.sync()
            #expect(result.errors.map(\.code) == [.corrupted])
            #expect(try await joined.patients.get(ana.id).firstName == "Ana")
        }
    }

    @Test("An envelope naming an epoch far ahead (forged by the operator) is refused and does not raise the floor: the genuine envelopes after it apply")
    func forgedEpochDoesNotPoisonTheFloor() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            try await devices.syncAll()
            let aID = try #require(try await devices.engines[0].credentials()).deviceID
            let vaultID = devices.vaults[0].vaultID
            let bogus = try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 1, count: 32),
                                         ciphertext: Data(repeating: 2, count: 300), epoch: .max)
            await devices.server.inject(bogus, signature: nil, from: aID, vaultID: vaultID)
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Despues", "Ruiz"))
            _ = try await devices.engines[0].sync()
            let result = try await devices.engines[1].sync()
            #expect(result.errors.count == 1)
            #expect(try await devices.vaults[1].patients.list().patients.contains { $0.firstName == "Despues" })
            #expect(try await devices.vaults[1].database.read { db in try SyncEpochRecord.pulledEpoch(db) } == 1)
        }
    }
}

extension InMemorySyncTransport {
    /// Stores `envelope` at the next sequence without any check, as a hostile operator
    /// would (in `from`'s name, with `signature`).
    func inject(_ envelope: SyncEnvelope, signature: SyncPushSignature?, from device: UUID, vaultID: UUID) {
        guard var vault = vaults[vaultID] else { return }
        var index: Int?
        if let signature {
            vault.signatures = (vault.signatures ?? []) + [signature]
            index = (vault.signatures?.count ?? 1) - 1
        }
        vault.envelopes.append(StoredEnvelope(sequence: (vault.envelopes.last?.sequence ?? 0) + 1, deviceID: device,
                                              envelope: envelope, signature: index))
        vault.sequenceByEnvelopeID[envelope.id] = vault.envelopes.last?.sequence
        vaults[vaultID] = vault
    }
}
