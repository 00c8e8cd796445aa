import Foundation
import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import MedVaultSyncServer
import Testing

/// `GET …/devices` and `PUT …/devices/{d}/name` through the real server and PostgreSQL.
@Suite("Sync device list through the server", .timeLimit(.minutes(4)))
struct SyncDeviceListTests {
    @Test("devices() lists every device in enrolment order, names sealed (the database holds no name), last seen, this one marked, a revoked one flagged")
    func deviceList() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let b = try await devices.join(a, transport)
            let c = try await devices.join(a, transport)
            try await a.engine.setDeviceName("Consulta ZQXNAMEMARKER")
            try await b.engine.setDeviceName("Móvil")
            try await a.engine.revoke(device: try await c.credentials().deviceID)
            let listed = try await b.engine.devices()
            let ids = [try await a.credentials().deviceID, try await b.credentials().deviceID,
                       try await c.credentials().deviceID]
            #expect(listed.map(\.id) == ids)
            #expect(listed.map(\.name) == ["Consulta ZQXNAMEMARKER", "Móvil", nil])
            #expect(listed.map(\.isCurrent) == [false, true, false])
            #expect(listed.map(\.isRevoked) == [false, false, true])
            #expect(listed.allSatisfy { $0.lastSeenAt != nil }, "every device called at least once")
            #expect(try await server.sql("SELECT count(*) FROM devices WHERE sealed_name IS NOT NULL") == "2")
            let names = try await server.sql("SELECT encode(sealed_name, 'escape') FROM devices WHERE sealed_name IS NOT NULL")
            #expect(!names.contains("ZQXNAMEMARKER"))
            // Another device's name is not this device's to set.
            let credentials = try await b.credentials()
            let other = try await server.client.send(
                "PUT", "/v1/vaults/\(a.vault.vaultID)/devices/\(ids[0])/name", token: credentials.deviceToken,
                body: try SyncWireJSON.encoder().encode(try SyncDeviceNameUpdate(sealedName: Data([1, 2, 3]))))
            #expect(other.status == 404)
            // A name over 1 KiB is refused (400) and changes nothing.
            let long = try await server.client.send(
                "PUT", "/v1/vaults/\(a.vault.vaultID)/devices/\(ids[1])/name", token: credentials.deviceToken,
                body: Data(#"{"sealedName":""#.utf8) + Data(repeating: 0x41, count: 1_400) + Data(#""}"#.utf8))
            #expect(long.status == 400)
            #expect(try await b.engine.devices().map(\.name) == ["Consulta ZQXNAMEMARKER", "Móvil", nil])
            // The revoked device can neither list nor name.
            #expect(await transportError { _ = try await c.engine.devices() }?.code == .unauthorized)
            #expect(await transportError { try await c.engine.setDeviceName("Robado") }?.code == .unauthorized)
        } }
    }
}
