import Foundation
import Logging
@testable import MedVaultSyncServer
import MedVaultSyncWire
import PostgresNIO
import Testing

/// What a push costs PostgreSQL besides its inserts: a push of new envelopes reads none
/// of the vault's (the unique index finds a retried id as it inserts), whatever the
/// vault's size and however old the statistics are (`SyncStore.pushAsNew`).
@Suite("What a push reads", .timeLimit(.minutes(5)))
struct SyncPushCostTests {
    @Test("A push of 500 new envelopes to a vault of 20,010 that the statistics still think small reads none of the vault's envelopes")
    func newEnvelopesReadNothing() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            // Statistics taken while this vault held 10 envelopes (and 30 other vaults 10
            // each), then 20,000 more stored, as a first push of a clinic does: autovacuum
            // is off for the table so that nothing refreshes them during the test.
            _ = try await server.sql("""
                ALTER TABLE envelopes SET (autovacuum_enabled = false);
                \(SyncPullCostTests.otherVaults(30, envelopesEach: 10));
                \(SyncPullCostTests.envelopes(of: vault.id, device: device.id, sequences: 1...10));
                ANALYZE envelopes;
                \(SyncPullCostTests.envelopes(of: vault.id, device: device.id, sequences: 11...20_010));
                UPDATE vaults SET last_sequence = 20010 WHERE vault_id = '\(vault.id)'
                """)
            let envelopes = try (0..<500).map { index in
                try SyncEnvelope(id: UUID(), recordKey: Data(repeating: UInt8(index % 256), count: 32),
                                 ciphertext: Data(repeating: 0x5A, count: 600))
            }
            let vaultState: SyncStore.LockedVault = (id: vault.id, lastSequence: 20_010, storedBytes: 0, epoch: 0)

            let (sequences, read) = try await SyncPullCostTests.withConnection(to: server) { connection, logger in
                try await connection.query("BEGIN", logger: logger)
                let sequences = try await SyncStore.pushAsNew(envelopes, vault: vaultState, deviceID: device.id,
                                                              signature: nil, quota: VaultQuota(), connection, logger)
                let read = try await Self.envelopeReads(connection, logger)
                try await connection.query("COMMIT", logger: logger)
                return (sequences, read)
            }
            #expect(sequences == Array(20_011...20_510))
            // Rows read (by the table's scans and its indexes'): none of the vault's 20,010
            // (a look-up first, with these statistics, read and filtered every one of
            // them). Buffers: the insert's own, about ten an envelope (heap, two indexes).
            #expect(read.rows <= 10, "\(read.rows) rows read to store \(envelopes.count) new envelopes")
            #expect(read.blocks <= 20 * Int64(envelopes.count), "\(read.blocks) buffers read")
            #expect(try await server.sql("SELECT count(*) FROM envelopes WHERE vault_id = '\(vault.id)'") == "20510")
        }
    }

    @Test("A retry among new envelopes is not stored as new: the attempt changes nothing (savepoint) and leaves the push to the path that reads what is stored")
    func retryFallsBack() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let stored = try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 1, count: 32), ciphertext: Data(repeating: 2, count: 64))
            let new = try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 3, count: 32), ciphertext: Data(repeating: 4, count: 64))
            let first: SyncStore.LockedVault = (id: vault.id, lastSequence: 0, storedBytes: 0, epoch: 0)
            let second: SyncStore.LockedVault = (id: vault.id, lastSequence: 1, storedBytes: 96, epoch: 0)
            let results = try await SyncPullCostTests.withConnection(to: server) { connection, logger in
                try await connection.query("BEGIN", logger: logger)
                let one = try await SyncStore.pushAsNew([stored], vault: first, deviceID: device.id, signature: nil,
                                                        quota: VaultQuota(), connection, logger)
                let again = try await SyncStore.pushAsNew([new, stored], vault: second, deviceID: device.id, signature: nil,
                                                          quota: VaultQuota(), connection, logger)
                let twice = try await SyncStore.pushAsNew([new, new], vault: second, deviceID: device.id, signature: nil,
                                                          quota: VaultQuota(), connection, logger)
                // Unsigned in a vault with epochs: refused only if something new is stored,
                // which the path that reads what is stored decides (a retry still answers).
                let signedEpoch: SyncStore.LockedVault = (id: vault.id, lastSequence: 1, storedBytes: 96, epoch: 1)
                let unsigned = try await SyncStore.pushAsNew(
                    [try SyncEnvelope(id: stored.id, recordKey: stored.recordKey, ciphertext: stored.ciphertext, epoch: 1)],
                    vault: signedEpoch, deviceID: device.id, signature: nil, quota: VaultQuota(), connection, logger)
                try await connection.query("COMMIT", logger: logger)
                return [one, again, twice, unsigned]
            }
            #expect(results[0] == [1])
            #expect(results[1] == nil && results[2] == nil && results[3] == nil)
            // Only the first push stored anything, and the vault's row counts it alone.
            #expect(try await server.sql("SELECT count(*) FROM envelopes WHERE vault_id = '\(vault.id)'") == "1")
            #expect(try await server.sql("SELECT last_sequence FROM vaults WHERE vault_id = '\(vault.id)'") == "1")
        }
    }

    /// The rows and buffers the current transaction read in the envelopes' table, its
    /// TOAST table and their indexes.
    static func envelopeReads(_ connection: PostgresConnection, _ logger: Logger) async throws -> (rows: Int64, blocks: Int64) {
        (try await SyncPullCostTests.envelopeStatistic("pg_stat_get_xact_tuples_fetched", connection, logger),
         try await SyncPullCostTests.envelopeBlocksFetched(connection, logger))
    }
}
