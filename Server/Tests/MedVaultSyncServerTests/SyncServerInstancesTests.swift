import Foundation
import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import Testing

/// The server keeps no state of its own between requests: every token, challenge,
/// pairing, envelope and epoch is in PostgreSQL. So several instances over one database
/// serve the devices as one does; the per-device rate limit is each instance's own
/// (docs/sync-server.md, "Several instances").
@Suite("Two server instances over one PostgreSQL database", .timeLimit(.minutes(5)))
struct SyncServerInstancesTests {
    @Test("Devices of two vaults spread across two instances push at once: everything converges, every change stored once, sequences dense; a revocation on one instance locks the device out of the other")
    func twoInstancesConverge() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { first in
            try await TestServer.with(database: first.database) { second in
                let viaFirst = try makeTransport(first.baseURL)
                let viaSecond = try makeTransport(second.baseURL)
                // Vault A: registered through the first instance, joined through the second,
                // and a third device through the first.
                let a1 = try await devices.register(viaFirst)
                let a2 = try await devices.join(a1, viaSecond)
                let a3 = try await devices.join(a1, viaFirst)
                // Vault B: the other way round.
                let b1 = try await devices.register(viaSecond)
                let b2 = try await devices.join(b1, viaFirst)
                let all = [a1, a2, a3, b1, b2]

                // Every device writes and syncs at the same time, three rounds.
                var uploaded = try await withThrowingTaskGroup(of: Int.self) { group in
                    for (index, device) in all.enumerated() {
                        group.addTask {
                            var uploaded = 0
                            for round in 0..<3 {
                                try await EngineRecords.addPatients(4, to: device.vault, prefix: "D\(index)R\(round)")
                                uploaded += try await device.engine.sync().uploaded
                            }
                            return uploaded
                        }
                    }
                    return try await group.reduce(0, +)
                }
                for _ in 0..<2 {
                    for device in all { uploaded += try await device.engine.sync().uploaded }
                }
                try await expectConverged([a1, a2, a3])
                try await expectConverged([b1, b2])
                #expect(try await a1.vault.patients.count(filter: .all) == 3 * 3 * 4)
                #expect(try await b1.vault.patients.count(filter: .all) == 2 * 3 * 4)

                // Once each: as many envelope rows as the devices sent (none stored twice under
                // another id), and each vault's sequences 1…n with no gap (both instances
                // allocate them under the vault's row lock).
                let dense = try await first.sql("""
                    SELECT bool_and(dense) FROM (SELECT max(sequence) = count(*) AS dense FROM envelopes
                                                 GROUP BY vault_id) d
                    """)
                let total = try await first.sql("SELECT count(*) FROM envelopes")
                #expect(dense == "t")
                #expect(Int(total) == uploaded && uploaded > 0)

                // Revoked through the second instance, refused by the first at once.
                let a3Credentials = try await a3.credentials()
                try await a2.engine.revoke(device: a3Credentials.deviceID)
                await #expect { _ = try await viaFirst.pull(after: 0, limit: 10, as: a3Credentials) } throws: {
                    ($0 as? MedVaultError)?.code == .unauthorized
                }
                _ = try await EngineRecords.add(to: a2.vault, marker: "Tras")
                try await syncAll([a2, a1])
                try await expectConverged([a1, a2])
            }
        } }
    }
}
