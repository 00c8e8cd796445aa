import Crypto
import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// Device tokens that expire and are renewed only with a proof of the vault key (issue
/// #33, item 6): a thief of a token loses it at the latest when it expires, and at once
/// when the device renews.
@Suite("Sync token lifetime", .timeLimit(.minutes(3)))
struct SyncTokenLifetimeTests {
    /// The renew request for `device`'s current challenge, signed by `key` (the vault's by default).
    static func renewal(_ device: TestDevice, key: Curve25519.Signing.PrivateKey? = nil,
                        token: String? = nil, path deviceID: UUID? = nil) async throws -> HTTPTestResponse {
        let challenge = try await TestDevice.challenge(vault: device.vault.id, device: device.id, client: device.client)
        let message = SyncDeviceProof.message(.renew, challenge: challenge, vaultID: device.vault.id, deviceID: device.id)
        let request = try SyncTokenRenewalRequest(
            challenge: challenge, signature: try (key ?? device.vault.signingKey).signature(for: message))
        return try await device.client.send("POST", "/v1/vaults/\(device.vault.id)/devices/\(deviceID ?? device.id)/token",
                                            token: token ?? device.token, json: request)
    }

    static func renewed(_ device: TestDevice, token: String? = nil) async throws -> TestDevice {
        let response = try await renewal(device, token: token)
        try #require(response.status == 200, "renew: \(response.status) \(response.text)")
        let answer = try response.decode(SyncDeviceToken.self)
        #expect(answer.expiresInSeconds == SyncServerLimits().tokenLifetimeSeconds)
        return TestDevice(vault: device.vault, id: device.id, token: answer.deviceToken, client: device.client)
    }

    /// Syncs once: false when it synced, true when it met a renewal still settling (409).
    static func metSettlingRenewal(_ engine: SyncEngine) async throws -> Bool {
        do {
            _ = try await engine.sync()
            return false
        } catch let error as MedVaultError where error.code == .conflict {
            return true
        }
    }

    /// Ages every token of the server's database past the default lifetime: the event a
    /// test waits for, instead of thirty days.
    static func ageTokens(_ server: TestServer) async throws {
        _ = try await server.sql("UPDATE devices SET token_issued_at = now() - interval '31 days'")
    }

    @Test("An expired token is 401 token_expired; renewal needs the token and the vault key's proof; the old token then stops working")
    func expiredTokenIsRenewedOnlyWithTheProof() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            _ = try await device.pushOK([try vault.seal("before", record: "a")])
            try await Self.ageTokens(server)

            let refused = try await device.push([try vault.seal("after", record: "b")])
            #expect(refused.status == 401)
            #expect(try refused.decode(SyncErrorBody.self).error == .tokenExpired)
            #expect(try await device.pull().status == 401)

            // A thief of the token without the vault key: another key's proof is 403.
            let thief = try await Self.renewal(device, key: Curve25519.Signing.PrivateKey())
            #expect(thief.status == 403, "\(thief.text)")
            // The vault key without the token: 401.
            let tokenless = try await Self.renewal(device, token: String(repeating: "A", count: 43))
            #expect(tokenless.status == 401)

            let renewed = try await Self.renewed(device)
            #expect(renewed.token != device.token)
            _ = try await renewed.pushOK([try vault.seal("after", record: "b")])
            // The replaced token serves another renewal only (a device whose answer was lost).
            let old = try await device.pull()
            #expect(old.status == 401)
            #expect(try old.decode(SyncErrorBody.self).error == .tokenExpired)
        }
    }

    @Test("A renewal whose answer was lost: the replaced token is token_expired everywhere, renews again once the renewal settled (409 before), and the lost token dies")
    func lostRenewalAnswerRenewsAgain() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let lost = try await Self.renewed(device)
            // The replaced token: renew, never push or pull — and said so, so the device renews.
            let replaced = try await device.pull()
            #expect(replaced.status == 401)
            #expect(try replaced.decode(SyncErrorBody.self).error == .tokenExpired)
            // Moments after the renewal, another process of the device may hold `lost`: refused.
            let early = try await Self.renewal(device)
            #expect(early.status == 409, "\(early.text)")
            #expect(try early.decode(SyncErrorBody.self).error == .tokenRenewed)
            _ = try await lost.pullOK()

            _ = try await server.sql("UPDATE devices SET token_issued_at = now() - interval '10 minutes'")
            let again = try await Self.renewed(device)
            _ = try await again.pullOK()
            let dead = try await lost.pull()
            #expect(dead.status == 401)
            #expect(try dead.decode(SyncErrorBody.self).error == .unauthorized)
        }
    }

    @Test("A stranger holding every anonymous challenge of a device cannot block its renewal: the token asks for its own")
    func renewalChallengesAreTheDevicesOwn() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            for _ in 0..<SyncServerLimits().maximumPendingChallenges {
                _ = try await TestDevice.challenge(vault: vault.id, device: device.id, client: server.client)
            }
            let blocked = try await server.client.send(
                "POST", "/v1/challenges", json: SyncChallengeRequest(vaultID: vault.id, deviceID: device.id))
            #expect(blocked.status == 429)
            try await Self.ageTokens(server)
            let path = "/v1/vaults/\(vault.id)/devices/\(device.id)/token"
            let asked = try await server.client.send("POST", path + "/challenges", token: device.token)
            #expect(asked.status == 201, "\(asked.text)")
            let challenge = try asked.decode(SyncChallenge.self).challenge
            let message = SyncDeviceProof.message(.renew, challenge: challenge, vaultID: vault.id, deviceID: device.id)
            let renewed = try await server.client.send("POST", path, token: device.token, json: try SyncTokenRenewalRequest(
                challenge: challenge, signature: try vault.signingKey.signature(for: message)))
            #expect(renewed.status == 200, "\(renewed.text)")
            // Without a token, or for another device: no challenge.
            #expect(try await server.client.send("POST", path + "/challenges").status == 401)
            let other = "/v1/vaults/\(vault.id)/devices/\(UUID())/token/challenges"
            #expect(try await server.client.send("POST", other, token: device.token).status == 404)
        }
    }

    @Test("A device renews only its own token; a revoked device cannot renew, even with the vault key")
    func renewalIsForTheActiveDeviceItself() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let second = try await TestDevice.join(vault, client: server.client)
            let other = try await Self.renewal(first, path: second.id)
            #expect(other.status == 404, "\(other.text)")

            let revoke = try await first.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(second.id)",
                                                     token: first.token)
            #expect(revoke.status == 204)
            let revoked = try await Self.renewal(second)
            #expect(revoked.status == 401, "\(revoked.text)")
            #expect(try await server.sql("SELECT count(*) FROM devices WHERE previous_token_hash IS NOT NULL") == "0")
        }
    }

    @Test("The engine renews an expired token by itself and syncs; renewDeviceToken() rotates it: the old token stops working")
    func engineRenewsItsToken() async throws {
        try await TestServer.with { server in
            try await EngineDevices.with { devices in
                let transport = try HTTPSyncTransport(configuration: .init(baseURL: server.baseURL))
                let first = try await devices.register(transport)
                let second = try await devices.join(first, transport)
                _ = try await EngineRecords.add(to: first.vault, marker: "before-expiry")
                try await syncAll([first, second])
                try await Self.ageTokens(server)

                let stale = try await first.credentials()
                let expired = await #expect(throws: MedVaultError.self) {
                    _ = try await transport.pull(after: 0, limit: 1, as: stale)
                }
                #expect(expired?.code == .tokenExpired)
                _ = try await EngineRecords.add(to: first.vault, marker: "after-expiry")
                let result = try await first.engine.sync()
                #expect(result.uploaded >= 1)
                let fresh = try await first.credentials()
                #expect(fresh.deviceToken != stale.deviceToken)
                // The replaced token says so (a second process holding it picks up the new one).
                let replaced = await #expect(throws: MedVaultError.self) { _ = try await transport.keyring(as: stale) }
                #expect(replaced?.code == .tokenExpired)

                let original = try await second.credentials()
                try await second.engine.renewDeviceToken()
                _ = try await second.engine.sync()
                try await expectConverged([first, second], patients: 2)

                let before = try await second.credentials()
                try await second.engine.renewDeviceToken()
                let after = try await second.credentials()
                #expect(after.deviceToken != before.deviceToken)
                let error = await #expect(throws: MedVaultError.self) {
                    _ = try await transport.pull(after: 0, limit: 1, as: before)
                }
                #expect(error?.code == .tokenExpired)
                _ = try await transport.pull(after: 0, limit: 1, as: after)
                // Two renewals back: gone.
                let gone = await #expect(throws: MedVaultError.self) {
                    _ = try await transport.pull(after: 0, limit: 1, as: original)
                }
                #expect(gone?.code == .unauthorized)
            }
        }
    }

    @Test("The engine recovers from a renewal whose answer it never got: 409 while the renewal settles, then it renews with the token it holds")
    func engineRecoversFromALostRenewalAnswer() async throws {
        try await TestServer.with { server in
            try await EngineDevices.with { devices in
                let transport = try HTTPSyncTransport(configuration: .init(baseURL: server.baseURL))
                let device = try await devices.register(transport)
                let held = try await device.credentials()
                // The renewal the device sent, as the server saw it; its answer never arrived.
                let signingSeed = try await KeyMaterial.authoritySeed(of: device.vault)
                let vault = TestVault(id: held.vaultID,
                                      signingKey: try Curve25519.Signing.PrivateKey(rawRepresentation: signingSeed))
                let lost = try await Self.renewed(TestDevice(vault: vault, id: held.deviceID, token: held.deviceToken,
                                                             client: server.client))
                _ = try await EngineRecords.add(to: device.vault, marker: "after-the-lost-answer")
                let settling = await #expect(throws: MedVaultError.self) { _ = try await device.engine.sync() }
                #expect(settling?.code == .conflict, "\(String(describing: settling))")
                #expect(try await device.credentials().deviceToken == held.deviceToken)

                _ = try await server.sql("UPDATE devices SET token_issued_at = now() - interval '10 minutes'")
                let result = try await device.engine.sync()
                #expect(result.uploaded >= 1)
                let renewed = try await device.credentials()
                #expect(renewed.deviceToken != held.deviceToken && renewed.deviceToken != lost.token)
                #expect(try await lost.pull().status == 401)
            }
        }
    }

    @Test("Two engines on one vault whose token expired: both sync; one renewal, the other takes the token it saved")
    func twoEnginesShareOneRenewal() async throws {
        try await TestServer.with { server in
            try await EngineDevices.with { devices in
                let transport = try HTTPSyncTransport(configuration: .init(baseURL: server.baseURL))
                let device = try await devices.register(transport)
                let other = SyncEngine(vault: device.vault, transport: transport)
                try await Self.ageTokens(server)
                try await other.renewDeviceToken()
                // The first engine read nothing yet: it finds the renewed token in the vault.
                _ = try await device.engine.sync()
                try await Self.ageTokens(server)
                async let first = Self.metSettlingRenewal(device.engine)
                async let second = Self.metSettlingRenewal(other)
                // A pass that read the replaced token before the other saved the new one may
                // meet the settling renewal once (409); its next pass syncs.
                if try await first { _ = try await device.engine.sync() }
                if try await second { _ = try await other.sync() }
                #expect(try await server.sql("SELECT count(*) FROM devices") == "1")
            }
        }
    }
}
