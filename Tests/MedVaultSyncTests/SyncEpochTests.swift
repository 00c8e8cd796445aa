import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Issue #31, items 2 and 3: a revocation that starts a new sync epoch locks the revoked
/// device out for good, and a join needs the epoch key (an enrolled device's or the
/// recovery kit's), not the vault key alone.
@Suite("Sync epochs: revocation re-keys, joins need the epoch key", .timeLimit(.minutes(3)))
struct SyncEpochTests {
    @Test("Revoke B from A: B, with its vault key, files, password and former sync secret, cannot sync, join again or open anything sealed after; A and C keep syncing")
    func revokedDeviceIsLockedOut() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b, c) = (devices.engines[0], devices.engines[1], devices.engines[2])
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Antes", "Ruiz"))
            try await devices.syncAll()
            let oldSecret = try #require(try await b.syncSecret())
            let oldKeyring = try await devices.server.keyring(as: try #require(try await a.credentials()))
            let bID = try #require(try await b.credentials()).deviceID

            try await a.revoke(device: bID)
            let newSecret = try #require(try await a.syncSecret())
            #expect(newSecret != oldSecret)
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Despues", "Ruiz"))
            _ = try await a.sync()

            // B's token is dead.
            await expectMedVaultError(.unauthorized) { try await b.sync() }
            // B joins again as a new device with what it holds: the epoch keys the server
            // keeps for the recovery kit do not open with its former secret.
            let again = try await Vault.join(at: dir.file("b-again"), keyring: oldKeyring.keyring, syncSecret: oldSecret,
                                             password: try VaultFixtures.password(), options: VaultFixtures.options)
            defer { Task { await again.lock() } }
            await expectMedVaultError(.wrongSyncSecret) { try await SyncEngine(vault: again, transport: devices.server).join() }
            // Nor does a proof with the authority key of the epoch it knew.
            let vaultID = devices.vaults[1].vaultID
            await expectMedVaultError(.unauthorized) { try await Self.join(devices.server, devices.vaults[1], epoch: 1) }
            // Register finds the vault registered and falls back to a join, refused alike.
            await expectMedVaultError(.wrongSyncSecret) {
                try await SyncEngine(vault: again, transport: devices.server).register()
            }

            // Nothing sealed after the revocation opens under any key B holds.
            let cCredentials = try #require(try await c.credentials())
            let all = try await devices.server.pull(after: 0, limit: 500, as: cCredentials).envelopes
            let after = all.filter { $0.envelope.epoch == 2 }
            #expect(!after.isEmpty)
            let opened = try await devices.vaults[1].withSyncKeyChain { chain in
                after.filter { (try? EnvelopeOpener(chain: chain).open($0.envelope)) != nil }.count
            }
            #expect(opened == 0)
            let newKeyring = try await devices.server.keyring(as: cCredentials)
            #expect(throws: MedVaultError.self) { try SealedKeyring(opening: newKeyring.keyring, secret: oldSecret) }
            let bundle = try await devices.server.recovery(vaultID: vaultID)
            await expectMedVaultError(.corrupted) {
                _ = try await devices.vaults[1].openEpochKeys(try #require(bundle.epochKeys), secret: oldSecret)
            }

            // A and C keep syncing: C adopts the new epoch and its secret.
            let result = try await c.sync()
            #expect(result.downloaded >= 1)
            #expect(try await devices.vaults[2].patients.list().patients.map(\.lastName).filter { $0 == "Ruiz" }.count == 2)
            #expect(try await c.syncSecret() == newSecret)
            _ = try await devices.vaults[2].patients.create(ClinicalFixtures.patient("DeC", "Ruiz"))
            _ = try await c.sync()
            _ = try await a.sync()
            #expect(try await devices.vaults[0].patients.count() == 3)
            let listed = try await a.devices()
            #expect(listed.map(\.isRevoked) == [false, true, false])
            #expect(listed.map(\.isCertified) == [true, false, true])
        }
    }

    @Test("A join with the vault key alone (no epoch key: neither an enrolled device's nor the recovery kit's) is refused; the epoch's key joins")
    func joinNeedsTheEpochKey() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            // A proof derived from the vault key, as every join before epochs: refused.
            await expectMedVaultError(.unauthorized) { try await Self.join(devices.server, vault, epoch: 0) }
            // Without a certificate, even with the epoch's key: refused.
            await expectMedVaultError(.unauthorized) { try await Self.join(devices.server, vault, epoch: 1, certified: false) }
            // The epoch's key with a certificate: the control that the refusals are the keys'.
            try await Self.join(devices.server, vault, epoch: 1)
        }
    }

    @Test("A change C sealed before it learnt of the revocation is re-sealed in the new epoch: the server holds nothing of the old epoch pushed after it")
    func outboxIsResealed() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b, c) = (devices.engines[0], devices.engines[1], devices.engines[2])
            try await devices.syncAll()
            // C seals a change but cannot push it (the server is unreachable for one call).
            _ = try await devices.vaults[2].patients.create(ClinicalFixtures.patient("Pendiente", "Ruiz"))
            let cCredentials = try #require(try await c.credentials())
            _ = try await devices.vaults[2].withSyncKeyChain { chain in
                try await devices.vaults[2].database.write { db in
                    try PendingChangeSealer.sealPending(keys: chain.current, localDevice: cCredentials.deviceID, db)
                }
            }
            let sealedEpochs = try await devices.vaults[2].database.read { db in try SyncStateStore.outbox(limit: 10, db).map(\.epoch) }
            #expect(sealedEpochs == [1])
            let before = await devices.server.envelopeCount(vaultID: devices.vaults[0].vaultID)
            try await a.revoke(device: try #require(try await b.credentials()).deviceID)
            _ = try await c.sync()
            let all = try await devices.server.pull(after: Int64(before), limit: 500, as: cCredentials).envelopes
            #expect(!all.isEmpty)
            #expect(all.allSatisfy { $0.envelope.epoch == 2 })
            _ = try await a.sync()
            #expect(try await devices.vaults[0].patients.list().patients.contains { $0.firstName == "Pendiente" })
        }
    }

    @Test("A server that swaps a device's key in the list (its own box key, say) cannot get the new epoch sealed to it: the revocation is refused and nothing changes")
    func substitutedDeviceKeyIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(3, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let forging = CertificateForgingTransport(inner: server)
            let a = SyncEngine(vault: devices.vaults[0], transport: forging)
            let b = try #require(try await devices.engines[1].credentials()).deviceID
            let victim = try #require(try await devices.engines[2].credentials()).deviceID
            await forging.forge(victim)
            await expectMedVaultError(.conflict) { try await a.revoke(device: b) }
            #expect(try await server.keyring(as: try #require(try await a.credentials())).epoch == 1)
            _ = try await devices.engines[1].sync() // B still syncs: nothing was revoked
        }
    }

    @Test("A package the starter did not sign (the server's own keys for C) is refused: C adopts nothing and keeps its secret")
    func forgedPackageIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(3, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            try await devices.engines[0].revoke(device: try #require(try await devices.engines[1].credentials()).deviceID)
            let forging = CertificateForgingTransport(inner: server)
            await forging.tamperPackages()
            let c = SyncEngine(vault: devices.vaults[2], transport: forging)
            let secret = try await c.syncSecret()
            await expectMedVaultError(.corrupted) { try await c.sync() }
            #expect(try await c.syncSecret() == secret)
            #expect(try await devices.vaults[2].database.read { db in try SyncEpochRecord.currentEpoch(db) } == 1)
            // The genuine package then opens.
            _ = try await devices.engines[2].sync()
            #expect(try await devices.vaults[2].database.read { db in try SyncEpochRecord.currentEpoch(db) } == 2)
        }
    }

    @Test("A revocation whose reply is lost (or whose device is killed before keeping its keys) is completed from its own package on the server")
    func lostRevocationReplyIsRepaired() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(3, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let a = SyncEngine(vault: devices.vaults[0], transport: LostEpochReplyTransport(inner: server))
            let before = try await a.syncSecret()
            try await a.revoke(device: try #require(try await devices.engines[1].credentials()).deviceID)
            #expect(try await devices.vaults[0].database.read { db in try SyncEpochRecord.currentEpoch(db) } == 2)
            #expect(try await a.syncSecret() != before)
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Despues", "Ruiz"))
            _ = try await devices.engines[0].sync()
            _ = try await devices.engines[2].sync()
            #expect(try await devices.vaults[2].patients.list().patients.contains { $0.firstName == "Despues" })
        }
    }

    @Test("Bad revocations change nothing: none named, this device, a device the vault lacks")
    func badRevocations() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.engines[0]
            await expectMedVaultError(.validation, field: "devices") { try await a.revoke(devices: []) }
            await expectMedVaultError(.validation, field: "devices") {
                try await a.revoke(device: try #require(try await a.credentials()).deviceID)
            }
            await expectMedVaultError(.notFound) { try await a.revoke(device: UUID()) }
            #expect(try await devices.server.keyring(as: try #require(try await a.credentials())).epoch == 1)
            _ = try await devices.engines[1].sync()
        }
    }

    /// Asks `server` to join a new device to `vault`'s vault with a proof (and, when
    /// `certified`, a certificate of a fresh device key) signed by the authority of `epoch`.
    @discardableResult
    static func join(_ server: InMemorySyncTransport, _ vault: Vault, epoch: UInt32,
                     certified: Bool = true) async throws -> SyncDeviceToken {
        let vaultID = vault.vaultID
        let deviceID = UUID()
        let deviceKey = SyncDeviceKey.generate()
        let fresh = try await server.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: deviceID))
        let message = SyncDeviceProof.message(.join, challenge: fresh.challenge, vaultID: vaultID, deviceID: deviceID,
                                              boundTo: server.proofOrigin)
        let (signature, certificate) = try await vault.withSyncKeyChain { chain in
            let keys = try chain.keys(epoch: epoch)
            return (try keys.signForDevice(Array(message)),
                    certified ? try SyncEngine.certificate(of: deviceKey, deviceID: deviceID, vaultID: vaultID, keys: keys) : nil)
        }
        return try await server.join(vaultID: vaultID, try SyncJoinRequest(
            deviceID: deviceID, challenge: fresh.challenge, signature: Data(signature), origin: server.proofOrigin,
            certificate: certificate))
    }
}

/// A hostile server: lists one device with a box key of its own (a certificate it cannot
/// sign, so its signature is the genuine one over other keys), or serves packages whose
/// sealed bytes it replaced.
actor CertificateForgingTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private var forged: UUID?
    private var tampersPackages = false

    init(inner: InMemorySyncTransport) { self.inner = inner }

    func forge(_ device: UUID) { forged = device }
    func tamperPackages() { tampersPackages = true }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList {
        let list = try await inner.devices(as: credentials)
        return SyncDeviceList(devices: try list.devices.map { info in
            guard info.deviceID == forged, let genuine = info.certificate else { return info }
            let swapped = try SyncDeviceCertificate(deviceID: genuine.deviceID, epoch: genuine.epoch,
                                                    signingKey: genuine.signingKey,
                                                    boxKey: Data(try SyncDeviceKey.generate().boxPublicKey()),
                                                    signature: genuine.signature)
            return SyncDeviceInfo(deviceID: info.deviceID, registeredAt: info.registeredAt, lastSeenAt: info.lastSeenAt,
                                  revoked: info.revoked, sealedName: info.sealedName, certificate: swapped)
        }, epoch: list.epoch)
    }

    func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage {
        let genuine = try await inner.epochPackage(epoch: epoch, as: credentials)
        guard tampersPackages else { return genuine }
        // The server's own keys, sealed to the device: it cannot sign them as the starter.
        let payload = SecureBytes.random(count: SyncEngine.packagePayloadLength)
        guard let boxKey = try await inner.devices(as: credentials).devices
            .first(where: { $0.deviceID == credentials.deviceID })?.certificate?.boxKey else {
            throw MedVaultError(.notFound, reason: "the test server lists no key for this device")
        }
        let sealed = Data(try SyncDeviceKey.seal(payload, to: Array(boxKey)))
        return SyncEpochPackage(epoch: epoch, package: try SyncRekeyPackage(
            deviceID: credentials.deviceID, sealed: sealed, signature: genuine.package.signature),
                                signerCertificate: genuine.signerCertificate)
    }
}

/// A connection that delivers a new epoch to the server and loses the reply.
actor LostEpochReplyTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport

    init(inner: InMemorySyncTransport) { self.inner = inner }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws {
        try await inner.startEpoch(request, as: credentials)
        throw MedVaultError(.offline, reason: "the connection to the sync server was lost")
    }
}
