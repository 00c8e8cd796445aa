import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import Testing

/// The sync engine end to end through the in-memory server: convergence, echo, retry,
/// offline, tampering, revocation, join with the recovery key.
@Suite("Sync engine")
struct SyncEngineTests {
    @Test("Two devices converge: every record kind of one reaches the other, field by field, and nothing echoes back")
    func twoDevicesConverge() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Ana")
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Luis")
            let first = try await devices.engines[0].sync()
            #expect(first.uploaded == 12)
            let second = try await devices.engines[1].sync()
            #expect(second.downloaded == 12)
            #expect(second.uploaded == 0)   // applied changes are not echoed back
            #expect(second.errors.isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[1].patients.search("Luis", filter: .all, limit: 10).count == 1)

            // And back: an edit on the second device reaches the first.
            var patient = try #require(try await devices.vaults[1].patients.search("Ana", filter: .all, limit: 10).first)
            patient.address = "Calle Mayor 1"
            _ = try await devices.vaults[1].patients.update(patient)
            try await devices.syncAll()
            #expect(try await devices.vaults[0].patients.get(patient.id).address == "Calle Mayor 1")
            let again = try await devices.exports()
            #expect(again[0] == again[1])
            #expect(await devices.server.envelopeCount(vaultID: devices.vaults[0].vaultID) == 13)
        }
    }
}
