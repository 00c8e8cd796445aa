import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// Registration by invitation (issue #33, item 2): an enrolled device of a registered
/// vault mints a single-use invitation; the server registers a new vault with it, or
/// with the operator's deployment secret, and with nothing else.
@Suite("Sync invitations", .timeLimit(.minutes(3)))
struct SyncInvitationTests {
    static let secret = "deployment-secret-0123456789"

    static func invite(_ device: TestDevice) async throws -> HTTPTestResponse {
        try await device.client.send("POST", "/v1/vaults/\(device.vault.id)/invitations", token: device.token)
    }

    static func invitation(_ device: TestDevice) async throws -> String {
        let response = try await invite(device)
        try #require(response.status == 201, "invite: \(response.status) \(response.text)")
        let invitation = try response.decode(SyncInvitation.self)
        #expect(invitation.expiresInSeconds == 7 * 86_400)
        return invitation.invitation
    }

    @Test("An invitation registers one vault: unknown, spent, expired or absent ones are 403 registration_closed and store nothing; a failed registration leaves it unspent")
    func invitationRegistersOneVault() async throws {
        try await TestServer.with(registrationSecret: Self.secret, invitations: true) { server in
            let inviter = try await TestDevice(
                vault: TestVault(), id: UUID(), token: "", client: server.client).registeredWithSecret(Self.secret)
            let invitation = try await Self.invitation(inviter)

            for headers in [[:], ["MedVault-Invitation": String(repeating: "A", count: 43)],
                            ["MedVault-Invitation": "not an invitation"]] {
                let refused = try await TestDevice.registerResponse(TestVault(), client: server.client, headers: headers)
                #expect(refused.status == 403, "\(headers): \(refused.text)")
                #expect(try refused.decode(SyncErrorBody.self).error == .registrationClosed)
            }
            // A register whose proof fails: the invitation is not spent.
            var bad = try await TestDevice.registerRequest(TestVault(), client: server.client)
            bad = try SyncRegisterRequest(vaultID: bad.vaultID, deviceID: bad.deviceID,
                                          verificationKey: bad.verificationKey, keyring: bad.keyring,
                                          challenge: bad.challenge, signature: Data(repeating: 7, count: 64))
            let failed = try await server.client.send("POST", "/v1/vaults", body: try JSONEncoder().encode(bad),
                                                      headers: ["MedVault-Invitation": invitation])
            #expect(failed.status == 403)
            #expect(try await server.sql("SELECT count(*) FROM vaults") == "1")

            // A register of a vault that exists: 409, the invitation stays unspent.
            let taken = try await TestDevice.registerResponse(inviter.vault, client: server.client,
                                                              headers: ["MedVault-Invitation": invitation])
            #expect(taken.status == 409, "\(taken.text)")
            let invitedVault = TestVault()
            let invited = try await TestDevice.registerResponse(invitedVault, client: server.client,
                                                                headers: ["MedVault-Invitation": invitation])
            #expect(invited.status == 201, "\(invited.text)")
            #expect(try await server.sql("SELECT count(*) FROM vaults WHERE invited_by = '\(inviter.vault.id)'") == "1")
            // The right to invite is not passed on: an invited vault mints nothing.
            let invitedDevice = TestDevice(vault: invitedVault, id: UUID(),
                                           token: try invited.decode(SyncDeviceToken.self).deviceToken, client: server.client)
            let passedOn = try await Self.invite(invitedDevice)
            #expect(passedOn.status == 403, "\(passedOn.text)")
            #expect(try passedOn.decode(SyncErrorBody.self).error == .forbidden)
            let again = try await TestDevice.registerResponse(TestVault(), client: server.client,
                                                              headers: ["MedVault-Invitation": invitation])
            #expect(again.status == 403)
            #expect(try await server.sql("SELECT count(*) FROM vaults") == "2")

            let expired = try await Self.invitation(inviter)
            _ = try await server.sql("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE used_by_vault IS NULL")
            let late = try await TestDevice.registerResponse(TestVault(), client: server.client,
                                                             headers: ["MedVault-Invitation": expired])
            #expect(late.status == 403)
            #expect(try await server.sql("SELECT count(*) FROM vaults") == "2")
            // Minting drops expired unused invitations; spent ones stay, the record of who invited whom.
            _ = try await server.sql("UPDATE invitations SET expires_at = now() - interval '1 second'")
            _ = try await Self.invitation(inviter)
            #expect(try await server.sql("SELECT count(*) FROM invitations WHERE used_by_vault IS NOT NULL") == "1")
            #expect(try await server.sql("SELECT count(*) FROM invitations") == "2")
        }
    }

    @Test("Invitations: at most the server's maximum unused per vault (then 403 quota_exceeded), none from a revoked device, whose unspent ones die with it, and no route at all on a server without them")
    func invitationLimits() async throws {
        var limits = SyncServerLimits()
        limits.maximumPendingInvitations = 2
        try await TestServer.with(limits: limits, registrationSecret: Self.secret, invitations: true) { server in
            let vault = TestVault()
            let first = try await TestDevice(vault: vault, id: UUID(), token: "", client: server.client)
                .registeredWithSecret(Self.secret)
            let second = try await TestDevice.join(vault, client: server.client)
            _ = try await Self.invitation(first)
            let fromSecond = try await Self.invitation(second)
            let third = try await Self.invite(first)
            #expect(third.status == 403, "\(third.text)")
            #expect(try third.decode(SyncErrorBody.self).error == .quotaExceeded)

            let revoke = try await first.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(second.id)",
                                                     token: first.token)
            #expect(revoke.status == 204)
            #expect(try await Self.invite(second).status == 401)
            let stolen = try await TestDevice.registerResponse(TestVault(), client: server.client,
                                                               headers: ["MedVault-Invitation": fromSecond])
            #expect(stolen.status == 403, "a revoked device's invitation registered a vault")
            #expect(try await Self.invite(TestDevice(vault: TestVault(), id: UUID(), token: first.token,
                                                     client: server.client)).status == 404)
        }
        try await TestServer.with(registrationSecret: Self.secret) { server in
            let device = try await TestDevice(vault: TestVault(), id: UUID(), token: "", client: server.client)
                .registeredWithSecret(Self.secret)
            #expect(try await Self.invite(device).status == 404)
        }
    }

    @Test("The engine mints an invitation; a new vault registers with it through the HTTP transport")
    func engineInvitesAColleague() async throws {
        try await TestServer.with(registrationSecret: Self.secret, invitations: true) { server in
            try await EngineDevices.with { devices in
                var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL)
                configuration.registrationSecret = Self.secret
                let clinic = try await devices.register(try HTTPSyncTransport(configuration: configuration))
                let invitation = try await clinic.engine.makeInvitation()

                var invited = HTTPSyncTransport.Configuration(baseURL: server.baseURL)
                let refused = await #expect(throws: MedVaultError.self) {
                    _ = try await devices.register(try HTTPSyncTransport(configuration: invited))
                }
                #expect(refused?.code == .unauthorized)
                invited.invitation = invitation.invitation
                let colleague = try await devices.register(try HTTPSyncTransport(configuration: invited))
                _ = try await colleague.engine.sync()
                #expect(try await server.sql("SELECT count(*) FROM vaults") == "2")
            }
        }
    }
}

extension TestDevice {
    /// This device registered as its vault's first, with the deployment secret.
    func registeredWithSecret(_ secret: String) async throws -> TestDevice {
        let response = try await TestDevice.registerResponse(vault, client: client, deviceID: id,
                                                            headers: ["MedVault-Registration-Secret": secret])
        try #require(response.status == 201, "register: \(response.status) \(response.text)")
        return TestDevice(vault: vault, id: id, token: try response.decode(SyncDeviceToken.self).deviceToken,
                          client: client)
    }
}
