import Crypto
import Foundation
import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// Authentication, isolation between vaults, limits and refusals: every failure path
/// answers a typed JSON error and changes nothing.
@Suite("Sync server security", .serialized, .timeLimit(.minutes(3)))
struct SyncSecurityTests {
    @Test("A revoked device's token gets 401 on every route; the revoker keeps working; a device cannot revoke itself")
    func revokedTokenIs401() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let keeper = try await TestDevice.register(vault, client: server.client)
            let lost = try await TestDevice.join(vault, client: server.client)
            _ = try await lost.pushOK([try vault.seal("before", record: "r")])

            let selfRevoke = try await lost.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(lost.id)",
                                                        token: lost.token)
            #expect(selfRevoke.status == 400)

            let revoke = try await keeper.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(lost.id)",
                                                      token: keeper.token)
            #expect(revoke.status == 204)
            let again = try await keeper.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(lost.id)",
                                                     token: keeper.token)
            #expect(again.status == 204)

            let attempts = [
                try await lost.push([try vault.seal("after", record: "r")]),
                try await lost.pull(),
                try await lost.client.send("GET", "/v1/vaults/\(vault.id)/keyring", token: lost.token),
                try await lost.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(keeper.id)", token: lost.token),
            ]
            for response in attempts {
                #expect(response.status == 401)
                #expect(try response.decode(SyncErrorBody.self).error == .unauthorized)
            }
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "1")
            #expect(try await keeper.pullOK().envelopes.count == 1)
            // The revoked id cannot come back by joining again.
            let rejoin = try await TestDevice.joinResponse(vault, deviceID: lost.id, client: server.client)
            #expect(rejoin.status == 409)
            let unknown = try await keeper.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(UUID())",
                                                       token: keeper.token)
            #expect(unknown.status == 404)
        }
    }

    @Test("Missing, malformed and unknown tokens are 401")
    func badTokens() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            _ = try await TestDevice.register(vault, client: server.client)
            let path = "/v1/vaults/\(vault.id)/envelopes"
            for token: String? in [nil, "not-a-token", String(repeating: "A", count: 43)] {
                let response = try await server.client.send("GET", path, token: token)
                #expect(response.status == 401)
                #expect(try response.decode(SyncErrorBody.self).error == .unauthorized)
            }
        }
    }

    @Test("Vault B's token on vault A's routes is 404 like an unknown vault, and returns nothing of A")
    func crossVaultIsolation() async throws {
        try await TestServer.with { server in
            let vaultA = TestVault()
            let vaultB = TestVault()
            let deviceA = try await TestDevice.register(vaultA, client: server.client)
            let deviceB = try await TestDevice.register(vaultB, client: server.client)
            let secret = try vaultA.seal("A's record", record: "a")
            _ = try await deviceA.pushOK([secret])

            let intruder = TestDevice(vault: vaultA, id: deviceB.id, token: deviceB.token, client: server.client)
            let responses = [
                try await intruder.pull(),
                try await intruder.push([try vaultA.seal("planted", record: "a")]),
                try await server.client.send("GET", "/v1/vaults/\(vaultA.id)/keyring", token: deviceB.token),
                try await server.client.send("PUT", "/v1/vaults/\(vaultA.id)/keyring", token: deviceB.token,
                                             json: try SyncKeyringUpdate(expectedGeneration: 1, keyring:
                                                 try SyncKeyringBlob(generation: 2, keyring: Data([1])))),
                try await server.client.send("DELETE", "/v1/vaults/\(vaultA.id)/devices/\(deviceA.id)",
                                             token: deviceB.token),
            ]
            let unknownVault = try await server.client.send("GET", "/v1/vaults/\(UUID())/envelopes", token: deviceB.token)
            for response in responses {
                #expect(response.status == 404)
                #expect(response.body == unknownVault.body, "the same answer as a vault that does not exist")
                #expect(!response.text.contains(secret.ciphertext.base64EncodedString()))
                #expect(!response.text.contains(deviceA.id.uuidString))
            }
            #expect(try await server.sql("SELECT count(*) FROM envelopes WHERE vault_id = '\(vaultA.id)'") == "1")
            #expect(try await server.sql("SELECT generation FROM keyrings WHERE vault_id = '\(vaultA.id)'") == "1")
            #expect(try await server.sql("SELECT count(*) FROM devices WHERE revoked_at IS NOT NULL") == "0")
            // B's own pull sees nothing of A.
            #expect(try await deviceB.pullOK().envelopes.isEmpty)
        }
    }

    @Test("Joining needs a fresh challenge signed with the vault's key: wrong key, reuse, another device's challenge and an unknown vault are 403")
    func joinProofs() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            _ = try await TestDevice.register(vault, client: server.client)
            let wrongKey = try await TestDevice.joinResponse(vault, deviceID: UUID(), client: server.client,
                                                             signingKey: Curve25519.Signing.PrivateKey())
            #expect(wrongKey.status == 403)
            #expect(try wrongKey.decode(SyncErrorBody.self).error == .forbidden)

            // A valid join, then the same challenge and signature replayed.
            let deviceID = UUID()
            let challenge = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
            let signature = try vault.signingKey.signature(for: SyncDeviceProof.message(
                .join, challenge: challenge, vaultID: vault.id, deviceID: deviceID))
            let join = try SyncJoinRequest(deviceID: deviceID, challenge: challenge, signature: signature)
            let first = try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: join)
            #expect(first.status == 201)
            let replay = try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: join)
            #expect(replay.status == 403)

            // A challenge issued for another device id does not serve this one.
            let otherChallenge = try await TestDevice.challenge(vault: vault.id, device: UUID(), client: server.client)
            let thief = UUID()
            let stolen = try SyncJoinRequest(deviceID: thief, challenge: otherChallenge, signature:
                try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .join, challenge: otherChallenge, vaultID: vault.id, deviceID: thief)))
            #expect(try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: stolen).status == 403)

            // A register signature is no join signature.
            let crossID = UUID()
            let crossChallenge = try await TestDevice.challenge(vault: vault.id, device: crossID, client: server.client)
            let cross = try SyncJoinRequest(deviceID: crossID, challenge: crossChallenge, signature:
                try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .register, challenge: crossChallenge, vaultID: vault.id, deviceID: crossID)))
            #expect(try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: cross).status == 403)

            // An unknown vault answers exactly like a bad signature.
            let ghost = TestVault()
            let unknown = try await TestDevice.joinResponse(ghost, deviceID: UUID(), client: server.client)
            #expect(unknown.status == 403)
            #expect(unknown.body == wrongKey.body)
            #expect(try await server.sql("SELECT count(*) FROM devices") == "2")
        }
    }

    @Test("An expired challenge is refused")
    func expiredChallenge() async throws {
        // The challenge is aged in the database rather than waited out: with a short
        // lifetime, the registration's own challenge expired too whenever the machine was
        // busy (a register took over 5 s in a loaded `make test` run).
        try await TestServer.with { server in
            let vault = TestVault()
            _ = try await TestDevice.register(vault, client: server.client)
            let deviceID = UUID()
            let challenge = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
            _ = try await server.sql("UPDATE challenges SET expires_at = now() - interval '1 second'")
            let join = try SyncJoinRequest(deviceID: deviceID, challenge: challenge, signature:
                try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .join, challenge: challenge, vaultID: vault.id, deviceID: deviceID)))
            #expect(try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: join).status == 403)
        }
    }

    @Test("A stranger's challenge for the same (vault, device) does not cancel the device's own: it still joins; past the pending cap, 429 and no eviction")
    func strangerCannotCancelAnEnrolment() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            _ = try await TestDevice.register(vault, client: server.client)
            let deviceID = UUID()
            let mine = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
            // The ids are not secret: anyone can ask for a challenge for them.
            _ = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
            let join = try SyncJoinRequest(deviceID: deviceID, challenge: mine, signature:
                try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .join, challenge: mine, vaultID: vault.id, deviceID: deviceID)))
            let joined = try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: join)
            #expect(joined.status == 201, "\(joined.text)")

            // A flood fills the cap for another device id: refused, the first one kept.
            let other = UUID()
            let first = try await TestDevice.challenge(vault: vault.id, device: other, client: server.client)
            for _ in 1..<SyncServerLimits().maximumPendingChallenges {
                _ = try await TestDevice.challenge(vault: vault.id, device: other, client: server.client)
            }
            let refused = try await server.client.send("POST", "/v1/challenges",
                                                       json: SyncChallengeRequest(vaultID: vault.id, deviceID: other))
            #expect(refused.status == 429, "\(refused.text)")
            #expect(try refused.decode(SyncErrorBody.self).error == .rateLimited)
            let second = try SyncJoinRequest(deviceID: other, challenge: first, signature:
                try vault.signingKey.signature(for: SyncDeviceProof.message(
                    .join, challenge: first, vaultID: vault.id, deviceID: other)))
            #expect(try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: second).status == 201)
        }
    }

    @Test("Registering a vault id twice is 409 and leaves the first registration intact")
    func registerTwice() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let impostor = TestVault(idOf: vault)
            let deviceID = UUID()
            let challenge = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
            let request = try SyncRegisterRequest(
                vaultID: vault.id, deviceID: deviceID,
                verificationKey: impostor.signingKey.publicKey.rawRepresentation,
                keyring: try SyncKeyringBlob(generation: 9, keyring: Data([9])), challenge: challenge,
                signature: try impostor.signingKey.signature(for: SyncDeviceProof.message(
                    .register, challenge: challenge, vaultID: vault.id, deviceID: deviceID)))
            let response = try await server.client.send("POST", "/v1/vaults", json: request)
            #expect(response.status == 409)
            #expect(try response.decode(SyncErrorBody.self).error == .vaultExists)
            #expect(try await server.sql("SELECT generation FROM keyrings") == "1")
            #expect(try await server.sql("SELECT count(*) FROM devices") == "1")
            #expect(try await first.pullOK().envelopes.isEmpty)
            #expect(try await server.sql("SELECT encode(verification_key, 'hex') FROM vaults")
                == vault.signingKey.publicKey.rawRepresentation.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("Too large: a push body over the limit, too many envelopes, a keyring over 64 KiB")
    func sizeLimits() async throws {
        var limits = SyncServerLimits()
        limits.maximumPushBytes = 64 << 10
        limits.maximumEnvelopesPerPush = 3
        try await TestServer.with(limits: limits) { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let big = try vault.seal(String(repeating: "x", count: 100 << 10), record: "big")
            let tooBig = try await device.push([big])
            #expect(tooBig.status == 413)
            #expect(try tooBig.decode(SyncErrorBody.self).error == .payloadTooLarge)

            let many = try (1...4).map { try vault.seal("n\($0)", record: "n\($0)") }
            let tooMany = try await device.push(many)
            #expect(tooMany.status == 413)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "0")

            let hugeKeyring = Data(repeating: 7, count: SyncKeyringBlob.maximumLength + 1).base64EncodedString()
            let keyring = try await device.client.send("PUT", "/v1/vaults/\(vault.id)/keyring", token: device.token, body:
                Data(#"{"expectedGeneration":1,"keyring":{"generation":2,"keyring":"\#(hugeKeyring)"}}"#.utf8))
            #expect([400, 413].contains(keyring.status))
            #expect(try await server.sql("SELECT generation FROM keyrings") == "1")
        }
    }

    @Test("Bad JSON and bad values are 400 with a clear error naming no value")
    func badRequests() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let path = "/v1/vaults/\(vault.id)/envelopes"
            let notJSON = try await server.client.send("POST", path, token: device.token, body: Data("{oops".utf8))
            #expect(notJSON.status == 400)
            let body = try notJSON.decode(SyncErrorBody.self)
            #expect(body.error == .badRequest)
            #expect(!body.message.isEmpty)

            let shortKey = #"{"envelopes":[{"id":"\#(UUID())","recordKey":"AAAA","ciphertext":"\#(Data(count: 40).base64EncodedString())"}]}"#
            let invalid = try await server.client.send("POST", path, token: device.token, body: Data(shortKey.utf8))
            #expect(invalid.status == 400)
            #expect(invalid.text.contains("recordKey"))
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "0")

            let badChallenge = try await server.client.send("POST", "/v1/challenges", body: Data(#"{"vaultId":1}"#.utf8))
            #expect(badChallenge.status == 400)
            let unknownRoute = try await server.client.send("GET", "/v1/nothing")
            #expect(unknownRoute.status == 404)
            #expect(try unknownRoute.decode(SyncErrorBody.self).error == .notFound)
        }
    }

    @Test("A device over its rate gets 429 with Retry-After; another device is not affected")
    func rateLimit() async throws {
        var limits = SyncServerLimits()
        limits.requestsPerSecond = 0.01
        limits.burst = 5
        try await TestServer.with(limits: limits) { server in
            // Registration and joins spend the address's bucket: 2 challenges + 2 proofs.
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            var statuses: [Int] = []
            for _ in 0..<7 { statuses.append(try await first.pull().status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 })
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
            let limited = try await first.pull()
            #expect(limited.status == 429)
            #expect(try limited.decode(SyncErrorBody.self).error == .rateLimited)
            #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)

            // Buckets are per device: a second device of the same vault still gets through.
            let second = try await TestDevice.join(vault, client: server.client)
            #expect(try await second.pull().status == 200)
        }
    }
}

extension TestVault {
    /// Another vault's keys under the same id: an impostor's registration.
    init(idOf other: TestVault) {
        self.init(id: other.id)
    }
}
