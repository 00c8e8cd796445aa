import Foundation
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The in-memory server keeps the sync server's rules (docs/sync-server.md).
@Suite("In-memory sync transport")
struct InMemorySyncTransportTests {
    /// A registered vault: its id, signing key, and first device's credentials.
    static func registered(_ server: InMemorySyncTransport) async throws
        -> (vaultID: UUID, key: Ed25519.EphemeralSigningKey, credentials: SyncCredentials) {
        let vaultID = UUID()
        let key = Ed25519.EphemeralSigningKey()
        return (vaultID, key, try await reRegistered(server, vaultID: vaultID, key: key, keyring: Data([1, 2, 3])))
    }

    /// Registers `vaultID` with `key` under `deviceID`, publishing `keyring`.
    static func reRegistered(_ server: InMemorySyncTransport, vaultID: UUID, key: Ed25519.EphemeralSigningKey,
                             deviceID: UUID = UUID(), keyring: Data = Data([4, 5, 6])) async throws -> SyncCredentials {
        let challenge = try await server.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: deviceID))
        let signature = key.signature(for: SyncDeviceProof.message(.register, challenge: challenge.challenge,
                                                                    vaultID: vaultID, deviceID: deviceID))
        let token = try await server.register(try SyncRegisterRequest(
            vaultID: vaultID, deviceID: deviceID, verificationKey: key.publicKey,
            keyring: try SyncKeyringBlob(generation: 1, keyring: keyring), challenge: challenge.challenge,
            signature: signature))
        return SyncCredentials(vaultID: vaultID, deviceID: deviceID, deviceToken: token.deviceToken)
    }

    @Test("Registering a registered vault again is `conflict`, with its key or another; the first device's token keeps working")
    func registerAgain() async throws {
        let server = InMemorySyncTransport()
        let (vaultID, key, first) = try await Self.registered(server)
        for signer in [key, Ed25519.EphemeralSigningKey()] {
            #expect(await SyncFixtures.errorCode {
                _ = try await Self.reRegistered(server, vaultID: vaultID, key: signer, deviceID: first.deviceID)
            } == .conflict)
        }
        #expect(try await server.keyring(as: first).keyring == Data([1, 2, 3]))
    }

    static func envelope(_ byte: UInt8 = 1, id: UUID = UUID()) throws -> SyncEnvelope {
        try SyncEnvelope(id: id, recordKey: Data(repeating: byte, count: 32), ciphertext: Data(repeating: byte, count: 40))
    }

    @Test("Pushes get dense increasing sequences; the same id and bytes get the first sequence again; other bytes are `conflict` and store nothing")
    func idempotentPush() async throws {
        let server = InMemorySyncTransport()
        let (vaultID, _, credentials) = try await Self.registered(server)
        let first = try Self.envelope(1)
        let second = try Self.envelope(2)
        #expect(try await server.push(SyncPushRequest(envelopes: [first, second]), as: credentials).sequences == [1, 2])
        #expect(try await server.push(SyncPushRequest(envelopes: [second, try Self.envelope(3)]), as: credentials).sequences == [2, 3])
        let forged = try Self.envelope(9, id: first.id)
        #expect(await SyncFixtures.errorCode { _ = try await server.push(SyncPushRequest(envelopes: [try Self.envelope(4), forged]), as: credentials) } == .conflict)
        #expect(await server.envelopeCount(vaultID: vaultID) == 3)
    }

    @Test("Pull pages after a sequence with limit and hasMore, oldest first")
    func pullPages() async throws {
        let server = InMemorySyncTransport()
        let (_, _, credentials) = try await Self.registered(server)
        _ = try await server.push(SyncPushRequest(envelopes: try (1...5).map { try Self.envelope($0) }), as: credentials)
        let page = try await server.pull(after: 1, limit: 2, as: credentials)
        #expect(page.envelopes.map(\.sequence) == [2, 3])
        #expect(page.lastSequence == 3)
        #expect(page.hasMore)
        let last = try await server.pull(after: 3, limit: 10, as: credentials)
        #expect(last.envelopes.map(\.sequence) == [4, 5])
        #expect(!last.hasMore)
        let empty = try await server.pull(after: 5, limit: 10, as: credentials)
        #expect(empty.envelopes.isEmpty && empty.lastSequence == 5 && !empty.hasMore)
        #expect(await SyncFixtures.errorCode { _ = try await server.pull(after: -1, limit: 10, as: credentials) } == .validation)
    }

    @Test("Challenges are single use and bound to their ids; a bad signature, a register proof used to join, or an unknown vault is refused")
    func proofs() async throws {
        let server = InMemorySyncTransport()
        let (vaultID, key, _) = try await Self.registered(server)
        let device = UUID()
        let challenge = try await server.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: device))
        let registerProof = key.signature(for: SyncDeviceProof.message(.register, challenge: challenge.challenge,
                                                                        vaultID: vaultID, deviceID: device))
        #expect(await SyncFixtures.errorCode { _ = try await server.join(vaultID: vaultID, try SyncJoinRequest(
            deviceID: device, challenge: challenge.challenge, signature: registerProof)) } == .unauthorized)
        // The failed attempt consumed the challenge: the right signature is now refused too.
        let joinProof = key.signature(for: SyncDeviceProof.message(.join, challenge: challenge.challenge,
                                                                    vaultID: vaultID, deviceID: device))
        #expect(await SyncFixtures.errorCode { _ = try await server.join(vaultID: vaultID, try SyncJoinRequest(
            deviceID: device, challenge: challenge.challenge, signature: joinProof)) } == .unauthorized)
        // A fresh challenge with the right proof joins; the same device id cannot join twice
        // (a copy of a vault proves the same key: it must not take the device's place).
        for expected in [MedVaultError.Code?.none, .conflict] {
            let fresh = try await server.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: device))
            let proof = key.signature(for: SyncDeviceProof.message(.join, challenge: fresh.challenge,
                                                                    vaultID: vaultID, deviceID: device))
            #expect(await SyncFixtures.errorCode { _ = try await server.join(vaultID: vaultID, try SyncJoinRequest(
                deviceID: device, challenge: fresh.challenge, signature: proof)) } == expected)
        }
        let other = UUID()
        let stranger = try await server.challenge(SyncChallengeRequest(vaultID: other, deviceID: device))
        let strangerProof = key.signature(for: SyncDeviceProof.message(.join, challenge: stranger.challenge,
                                                                        vaultID: other, deviceID: device))
        #expect(await SyncFixtures.errorCode { _ = try await server.join(vaultID: other, try SyncJoinRequest(
            deviceID: device, challenge: stranger.challenge, signature: strangerProof)) } == .unauthorized)
    }

    @Test("The keyring is replaced only by a compare-and-swap on its generation")
    func keyringCAS() async throws {
        let server = InMemorySyncTransport()
        let (_, _, credentials) = try await Self.registered(server)
        let next = try SyncKeyringBlob(generation: 2, keyring: Data([9]))
        #expect(try await server.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: next), as: credentials) == next)
        let stale = try SyncKeyringBlob(generation: 2, keyring: Data([7]))
        #expect(await SyncFixtures.errorCode { _ = try await server.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: stale),
                                                                  as: credentials) } == .conflict)
        #expect(try await server.keyring(as: credentials) == next)
        // A generation that jumps is not an update at all: no room would be left after Int64.max.
        for jump: Int64 in [4, .max] {
            #expect(throws: SyncWireError(field: "generation", reason: "must be the expected generation + 1")) {
                try SyncKeyringUpdate(expectedGeneration: 2, keyring: try SyncKeyringBlob(generation: jump, keyring: Data([1])))
            }
        }
        #expect(throws: SyncWireError(field: "generation", reason: "must be the expected generation + 1")) {
            try SyncKeyringUpdate(expectedGeneration: .max, keyring: try SyncKeyringBlob(generation: .max, keyring: Data([1])))
        }
    }

    @Test("Vaults are isolated; a wrong or revoked token is `unauthorized`; a device cannot revoke itself")
    func isolationAndRevocation() async throws {
        let server = InMemorySyncTransport()
        let a = try await Self.registered(server)
        let b = try await Self.registered(server)
        _ = try await server.push(SyncPushRequest(envelopes: [try Self.envelope()]), as: a.credentials)
        let crossed = SyncCredentials(vaultID: a.vaultID, deviceID: b.credentials.deviceID, deviceToken: b.credentials.deviceToken)
        #expect(await SyncFixtures.errorCode { _ = try await server.pull(after: 0, limit: 10, as: crossed) } == .notFound)
        let wrong = SyncCredentials(vaultID: a.vaultID, deviceID: a.credentials.deviceID, deviceToken: "x")
        #expect(await SyncFixtures.errorCode { _ = try await server.pull(after: 0, limit: 10, as: wrong) } == .unauthorized)
        #expect(try await server.pull(after: 0, limit: 10, as: b.credentials).envelopes.isEmpty)
        #expect(await SyncFixtures.errorCode { try await server.revoke(device: a.credentials.deviceID, as: a.credentials) } == .validation)
        #expect(!a.credentials.description.contains(a.credentials.deviceToken))
    }

    @Test("Fault injection: the next N calls fail `offline`; a dropped push answer still stored the push")
    func faults() async throws {
        let server = InMemorySyncTransport()
        let (vaultID, _, credentials) = try await Self.registered(server)
        await server.failNextCalls(2)
        #expect(await SyncFixtures.errorCode { _ = try await server.pull(after: 0, limit: 1, as: credentials) } == .offline)
        #expect(await SyncFixtures.errorCode { _ = try await server.pull(after: 0, limit: 1, as: credentials) } == .offline)
        #expect(try await server.pull(after: 0, limit: 1, as: credentials).envelopes.isEmpty)
        await server.dropNextPushResponse()
        let envelope = try Self.envelope()
        #expect(await SyncFixtures.errorCode { _ = try await server.push(SyncPushRequest(envelopes: [envelope]), as: credentials) } == .offline)
        #expect(await server.envelopeCount(vaultID: vaultID) == 1)
        #expect(try await server.push(SyncPushRequest(envelopes: [envelope]), as: credentials).sequences == [1])
    }
}
