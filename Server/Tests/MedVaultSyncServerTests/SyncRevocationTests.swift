import Foundation
import MedVaultCore
import MedVaultKeys
@_spi(Sync) import MedVault
import MedVaultSync
import MedVaultSyncWire
import Testing

/// Issue #31's revocation acceptance, against the real server on PostgreSQL: revoking a
/// device starts a new sync epoch, after which the revoked device, holding everything it
/// ever had, is locked out, while the others keep syncing.
@Suite("Sync revocation through the server: a new epoch locks the revoked device out", .timeLimit(.minutes(3)))
struct SyncRevocationTests {
    @Test("Revoke B from A: B, with its vault key, files, password and former secret, is refused at register, join, renew and pull, and opens nothing sealed after; A and C keep syncing")
    func revokedDeviceIsLockedOut() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            _ = try await EngineRecords.add(to: a.vault, marker: "Antes")
            _ = try await a.engine.sync()
            let b = try await devices.join(a, transport)
            let c = try await devices.join(a, transport)
            try await syncAll([a, b, c])
            let bCredentials = try await b.credentials()
            let oldSecret = try #require(try await b.engine.syncSecret())
            let oldKeyring = try await transport.keyring(as: bCredentials)

            try await a.engine.revoke(device: bCredentials.deviceID)
            let after = try await EngineRecords.add(to: a.vault, marker: "Despues")
            _ = try await a.engine.sync()

            // B's token: refused on every route.
            await #expect { try await b.engine.sync() } throws: { ($0 as? MedVaultError)?.code == .unauthorized }
            await #expect { _ = try await transport.pull(after: 0, limit: 10, as: bCredentials) } throws: {
                ($0 as? MedVaultError)?.code == .unauthorized
            }
            await #expect { try await b.engine.renewDeviceToken() } throws: { ($0 as? MedVaultError)?.code == .unauthorized }
            // B joins again as a new device, with its password, its former secret and the
            // keyring it had: the server's epoch keys do not open for it.
            let again = try await Vault.join(at: devices.folder.appendingPathComponent("b-again"), keyring: oldKeyring.keyring,
                                             syncSecret: oldSecret, password: try Password(EngineDevices.password),
                                             options: Vault.Options(kdf: .fastForTestsOnly,
                                                                    passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
            let engine = SyncEngine(vault: again, transport: transport)
            await #expect { try await engine.join() } throws: { ($0 as? MedVaultError)?.code == .wrongSyncSecret }
            await #expect { try await engine.register() } throws: { ($0 as? MedVaultError)?.code == .wrongSyncSecret }
            await again.lock()
            // Nor does a proof signed with the authority key of the epoch B knew.
            let joining = UUID()
            let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: bCredentials.vaultID, deviceID: joining))
            let message = SyncDeviceProof.message(.join, challenge: challenge.challenge, vaultID: bCredentials.vaultID,
                                                  deviceID: joining, boundTo: transport.proofOrigin)
            let deviceKey = SyncDeviceKey.generate()
            let (signature, certificate) = try await b.vault.withSyncKeysSPI { keys in
                let signingKey = Data(try deviceKey.signingPublicKey())
                let boxKey = Data(try deviceKey.boxPublicKey())
                let certified = SyncDeviceCertificate.message(vaultID: bCredentials.vaultID, deviceID: joining, epoch: keys.epoch,
                                                              signingKey: signingKey, boxKey: boxKey)
                return (Data(try keys.signForDevice(Array(message))), try SyncDeviceCertificate(
                    deviceID: joining, epoch: keys.epoch, signingKey: signingKey, boxKey: boxKey,
                    signature: Data(try keys.signForDevice(Array(certified)))))
            }
            await #expect {
                _ = try await transport.join(vaultID: bCredentials.vaultID, try SyncJoinRequest(
                    deviceID: joining, challenge: challenge.challenge, signature: signature, origin: transport.proofOrigin,
                    certificate: certificate))
            } throws: { ($0 as? MedVaultError)?.code == .unauthorized }

            // Nothing sealed after the revocation opens under a key B holds (epoch 0's,
            // from the vault key, and epoch 1's).
            let cCredentials = try await c.credentials()
            let sealedAfter = try await transport.pull(after: 0, limit: 500, as: cCredentials).envelopes
                .filter { $0.envelope.epoch == 2 }
            #expect(!sealedAfter.isEmpty)
            let epochZero = try SyncKeys(vaultKey: SecureBytes(copying: try await KeyMaterial.of(b.vault)[0]),
                                         vaultID: bCredentials.vaultID)
            let epochOne = try await b.vault.withSyncKeysSPI { keys in keys.epoch }
            #expect(epochOne == 1)
            for pulled in sealedAfter {
                for label in ["MedVault sync envelope v1", "MedVault sync envelope v2"] {
                    let ad = Self.associatedData(label, vaultID: bCredentials.vaultID, epoch: label.hasSuffix("v2") ? 2 : nil,
                                                 envelope: pulled.envelope)
                    #expect(throws: MedVaultError.self) { try epochZero.open(Array(pulled.envelope.ciphertext), associatedData: ad) }
                    await #expect(throws: MedVaultError.self) {
                        try await b.vault.withSyncKeysSPI { keys in try keys.open(Array(pulled.envelope.ciphertext), associatedData: ad) }
                    }
                }
            }
            let recovery = try await transport.recovery(vaultID: bCredentials.vaultID)
            #expect(recovery.epoch == 2)
            #expect(throws: MedVaultError.self) { try SealedKeyring(opening: recovery.keyring.keyring, secret: oldSecret) }

            // A and C keep syncing, both ways; C holds the new secret.
            _ = try await c.engine.sync()
            #expect(try await c.vault.patients.get(after.id).lastName.contains("Despues"))
            #expect(try await c.engine.syncSecret() == (try await a.engine.syncSecret()))
            #expect(try await c.engine.syncSecret() != oldSecret)
            let fromC = try await EngineRecords.add(to: c.vault, marker: "DeC")
            _ = try await c.engine.sync()
            _ = try await a.engine.sync()
            #expect(try await a.vault.patients.get(fromC.id).lastName.contains("DeC"))
            #expect(try await a.engine.devices().map(\.isRevoked) == [false, true, false])
        } }
    }

    @Test("A holder of one device token cannot lock the others out: the plain revocation route is refused in a vault with epochs, and an epoch it cannot authorise is refused")
    func tokenAloneCannotRevoke() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let b = try await devices.join(a, transport)
            let aCredentials = try await a.credentials()
            let bID = try await b.credentials().deviceID
            await #expect { try await transport.revoke(device: bID, as: aCredentials) } throws: {
                ($0 as? MedVaultError)?.code == .unauthorized
            }
            // A new epoch whose authorisation is not the current key's: refused, nothing changes.
            let list = try await transport.devices(as: aCredentials)
            let certificate = try #require(list.devices.first { $0.deviceID == aCredentials.deviceID }?.certificate)
            let keyring = try await transport.keyring(as: aCredentials)
            let request = try SyncRekeyRequest(
                epoch: 2, verificationKey: Data(repeating: 7, count: 32), revoked: [bID], certificates: [certificate],
                packages: [try SyncRekeyPackage(deviceID: aCredentials.deviceID, sealed: Data([1]), signature: Data(count: 64))],
                signerCertificate: certificate,
                keyring: try SyncKeyringUpdate(expectedGeneration: keyring.generation,
                                               keyring: try SyncKeyringBlob(generation: keyring.generation + 1, keyring: Data([1]))),
                epochKeys: Data([1]), authorization: Data(count: 64))
            await #expect { try await transport.startEpoch(request, as: aCredentials) } throws: {
                ($0 as? MedVaultError)?.code == .unauthorized
            }
            #expect(try await transport.keyring(as: aCredentials).epoch == 1)
            _ = try await b.engine.sync()
        } }
    }

    static func associatedData(_ label: String, vaultID: UUID, epoch: UInt32?, envelope: SyncEnvelope) -> [UInt8] {
        var bytes = Array(label.utf8)
        withUnsafeBytes(of: vaultID.uuid) { bytes += $0 }
        if let epoch { withUnsafeBytes(of: epoch.bigEndian) { bytes += $0 } }
        withUnsafeBytes(of: envelope.id.uuid) { bytes += $0 }
        return bytes + Array(envelope.recordKey)
    }
}
