import Crypto
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire
import Testing

/// Register and join proofs name the server they are meant for (issue #31): a hostile
/// server that relays this server's challenge to a device and forwards the device's
/// answer gets a proof this server refuses.
@Suite("Sync server: proofs bound to its origin")
struct SyncProofOriginTests {
    static let origin = "https://sync.example.org"

    /// A join request for a new device of `vault`, signed for `signedOrigin` and naming `namedOrigin`.
    static func join(_ vault: TestVault, _ server: TestServer, signed signedOrigin: String,
                     named namedOrigin: String) async throws -> HTTPTestResponse {
        let deviceID = UUID()
        let challenge = try await TestDevice.challenge(vault: vault.id, device: deviceID, client: server.client)
        let message = SyncDeviceProof.message(.join, challenge: challenge, vaultID: vault.id, deviceID: deviceID,
                                              origin: signedOrigin)
        let request = try SyncJoinRequest(deviceID: deviceID, challenge: challenge,
                                          signature: try vault.signingKey.signature(for: message), origin: namedOrigin)
        return try await server.client.send("POST", "/v1/vaults/\(vault.id)/devices", json: request)
    }

    @Test("With MEDVAULT_SYNC_ORIGIN set: a proof for its origin joins; one for another origin, or naming another than it signs, is 403; an unbound proof of an earlier build still joins")
    func configuredOrigin() async throws {
        try await TestServer.with(origin: Self.origin) { server in
            let vault = TestVault()
            _ = try await TestDevice.register(vault, client: server.client)
            #expect(try await Self.join(vault, server, signed: Self.origin, named: Self.origin).status == 201)
            let relayed = try await Self.join(vault, server, signed: "https://relay.example", named: "https://relay.example")
            #expect(relayed.status == 403)
            #expect(try relayed.decode(SyncErrorBody.self).error == .forbidden)
            #expect(try await Self.join(vault, server, signed: "https://relay.example", named: Self.origin).status == 403)
            _ = try await TestDevice.join(vault, client: server.client)
            #expect(try await server.sql("SELECT count(*) FROM devices") == "3")
        }
    }

    @Test("The engine over HTTP binds its proofs: through the server's public origin it registers and joins; a device that reached it as another origin is refused")
    func engineBindsItsProofs() async throws {
        try await EngineDevices.with { devices in try await TestServer.with(origin: Self.origin) { server in
            var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL)
            configuration.proofOrigin = Self.origin
            let transport = try HTTPSyncTransport(configuration: configuration)
            let a = try await devices.register(transport)
            _ = try await devices.join(a, transport)
            // The base URL's own origin (http://127.0.0.1:port) is not the server's public one.
            let elsewhere = try makeTransport(server.baseURL)
            #expect(elsewhere.proofOrigin == SyncDeviceProof.origin(of: server.baseURL))
            do {
                _ = try await devices.join(a, elsewhere)
                Issue.record("a proof for another origin joined")
            } catch let error as MedVaultError {
                #expect(error.code == .unauthorized)
            }
            #expect(try await server.sql("SELECT count(*) FROM devices") == "2")
        } }
    }
}
