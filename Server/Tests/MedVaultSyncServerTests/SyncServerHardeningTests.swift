import Crypto
import Foundation
@testable import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// A device id asked for twice, two devices revoking each other and a keyring generation
/// that jumps; which database errors are worth a retry.
@Suite("Sync server: second tokens, racing revokes, jumping generations", .serialized, .timeLimit(.minutes(3)))
struct SyncServerHardeningTests {
    @Test("A device id is never given a second token, even to the vault's key: register and join again are 409, the first token keeps working")
    func noSecondToken() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let challenge = try await TestDevice.challenge(vault: vault.id, device: first.id, client: server.client)
            let again = try SyncRegisterRequest(
                vaultID: vault.id, deviceID: first.id, verificationKey: vault.signingKey.publicKey.rawRepresentation,
                keyring: try SyncKeyringBlob(generation: 1, keyring: try vault.sealedKeyring("not stored")),
                challenge: challenge, signature: try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .register, challenge: challenge, vaultID: vault.id, deviceID: first.id)))
            let registered = try await server.client.send("POST", "/v1/vaults", json: again)
            #expect(registered.status == 409)
            let joined = try await TestDevice.joinResponse(vault, deviceID: first.id, client: server.client)
            #expect(joined.status == 409)
            #expect(try joined.decode(SyncErrorBody.self).error == .deviceExists)
            #expect(try await first.pull().status == 200)
            #expect(try await server.sql("SELECT count(*) FROM devices") == "1")
            let keyring = try await first.client.send("GET", "/v1/vaults/\(vault.id)/keyring", token: first.token)
                .decode(SyncKeyringBlob.self)
            #expect(try vault.openKeyring(keyring.keyring) == "keyring 1")
        }
    }

    @Test("Two devices revoking each other at once never leave the vault without an active device", arguments: 0..<10)
    func mutualRevoke(round: Int) async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let a = try await TestDevice.register(vault, client: server.client)
            let b = try await TestDevice.join(vault, client: server.client)
            async let aRevokesB = a.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(b.id)", token: a.token)
            async let bRevokesA = b.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(a.id)", token: b.token)
            let statuses = try await [aRevokesB.status, bRevokesA.status]
            #expect(statuses.filter { $0 == 204 }.count == 1, "round \(round): \(statuses)")
            #expect(statuses.allSatisfy { $0 == 204 || $0 == 401 })
            #expect(try await server.sql("SELECT count(*) FROM devices WHERE revoked_at IS NULL") == "1")
        }
    }

    @Test("A keyring update whose generation jumps (by two, to Int64.max) is 400 and changes nothing")
    func generationJumps() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let path = "/v1/vaults/\(vault.id)/keyring"
            for generation in ["3", "9223372036854775807"] {
                let body = #"{"expectedGeneration":1,"keyring":{"generation":\#(generation),"keyring":"AAAA"}}"#
                let response = try await device.client.send("PUT", path, token: device.token, body: Data(body.utf8))
                #expect(response.status == 400, "\(generation)")
            }
            #expect(try await server.sql("SELECT generation FROM keyrings") == "1")
        }
    }

    @Test("Serialization failures, deadlocks, a full disk, lost connections and a read-only standby are worth a retry; constraint and syntax errors are not")
    func transientStates() {
        for state in ["40001", "40P01", "53100", "53300", "08006", "25006", "57P01"] {
            #expect(SyncErrorMiddleware.isTransient(state), "\(state)")
        }
        for state in ["23505", "22001", "42P01", "25001", "XX000", "40002", "53400", "08P01"] {
            #expect(!SyncErrorMiddleware.isTransient(state), "\(state)")
        }
    }
}
