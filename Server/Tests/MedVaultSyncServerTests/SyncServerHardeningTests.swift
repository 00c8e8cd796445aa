import Foundation
@testable import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// What a lost answer, two devices revoking each other and a keyring generation that
/// jumps do to the server; which database errors are worth a retry.
@Suite("Sync server: lost answers, racing revokes, jumping generations", .serialized, .timeLimit(.minutes(3)))
struct SyncServerHardeningTests {
    @Test("Registering again with the vault's key gives that device a new token; the old one is 401; keyring and envelopes stay")
    func registerAgain() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            _ = try await first.pushOK([try vault.seal("kept", record: "r")])
            let again = try await TestDevice.register(vault, client: server.client,
                                                      keyring: try vault.sealedKeyring("not stored"), deviceID: first.id)
            #expect(again.token != first.token)
            #expect(try await first.pull().status == 401)
            #expect(try await again.pullOK().envelopes.count == 1)
            #expect(try await server.sql("SELECT generation FROM keyrings") == "1")
            let keyring = try await again.client.send("GET", "/v1/vaults/\(vault.id)/keyring", token: again.token)
                .decode(SyncKeyringBlob.self)
            #expect(try vault.openKeyring(keyring.keyring) == "keyring 1")
            #expect(try await server.sql("SELECT count(*) FROM devices") == "1")
        }
    }

    @Test("Joining again gives a new token and ends the old one; a revoked device id cannot join again")
    func joinAgain() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let owner = try await TestDevice.register(vault, client: server.client)
            let joined = try await TestDevice.join(vault, client: server.client)
            let again = try await TestDevice.joinResponse(vault, deviceID: joined.id, client: server.client)
            #expect(again.status == 201)
            let token = try again.decode(SyncDeviceToken.self).deviceToken
            #expect(try await joined.pull().status == 401)
            let renewed = TestDevice(vault: vault, id: joined.id, token: token, client: server.client)
            #expect(try await renewed.pull().status == 200)
            let revoke = try await owner.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(joined.id)",
                                                     token: owner.token)
            #expect(revoke.status == 204)
            let back = try await TestDevice.joinResponse(vault, deviceID: joined.id, client: server.client)
            #expect(back.status == 409)
            #expect(try back.decode(SyncErrorBody.self).error == .deviceExists)
            #expect(try await renewed.pull().status == 401)
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
        for state in ["23505", "22001", "42P01", "25001", "XX000"] {
            #expect(!SyncErrorMiddleware.isTransient(state), "\(state)")
        }
    }
}
