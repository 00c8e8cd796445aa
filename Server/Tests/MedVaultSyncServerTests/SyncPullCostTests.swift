import Foundation
import Logging
@testable import MedVaultSyncServer
import MedVaultSyncWire
import PostgresNIO
import Testing

/// What a pull costs PostgreSQL: the page is cut by bytes in the query, so the bodies
/// of the candidates a page leaves out are never read (SyncStore+Envelopes.swift).
@Suite("What a pull reads", .timeLimit(.minutes(5)))
struct SyncPullCostTests {
    @Test("A pull of 1 MiB envelopes reads at most 1.5 times the bytes it sends, not the bodies of every candidate")
    func pullReadsWhatItSends() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            // Twenty envelopes of 1 MiB of random (so incompressible) bytes, written straight
            // into the table: a page of 4 MiB holds four of them.
            _ = try await server.sql("""
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
                SELECT '\(vault.id)', n, gen_random_uuid(), decode(repeat('ab', 32), 'hex'), '\(device.id)',
                       (SELECT decode(string_agg(lpad(to_hex((random() * 2147483647)::int), 8, '0'), ''), 'hex')
                        FROM generate_series(1, 262144))
                FROM generate_series(1, 20) n;
                UPDATE vaults SET last_sequence = 20 WHERE vault_id = '\(vault.id)'
                """)
            let logger = Logger(label: "test")
            let client = PostgresClient(configuration: TestServer.postgresConfiguration(server.postgres, server.database),
                                        backgroundLogger: logger)
            let runner = Task { await client.run() }
            defer { runner.cancel() }
            // The buffers one transaction asked for, in the envelopes' table, its TOAST table
            // (where large ciphertexts live) and their indexes: counted per transaction, so
            // read at once, before the transaction ends.
            let (page, blocks) = try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                let page = try await SyncStore.pullPage(connection, logger: logger, vaultID: vault.id, after: 0,
                                                        limit: SyncProtocolLimits.maximumPullLimit,
                                                        maximumBytes: SyncProtocolLimits.maximumPullBytes)
                var blocks: Int64 = 0
                let rows = try await connection.query("""
                    WITH tables AS (
                        SELECT oid FROM pg_class WHERE oid = 'envelopes'::regclass
                        UNION SELECT reltoastrelid FROM pg_class WHERE oid = 'envelopes'::regclass
                    )
                    SELECT coalesce(sum(pg_stat_get_xact_blocks_fetched(oid)), 0)::bigint FROM (
                        SELECT oid FROM tables UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM tables)
                    ) relations
                    """, logger: logger)
                for try await count in rows.decode(Int64.self) { blocks = count }
                try await connection.query("COMMIT", logger: logger)
                return (page, blocks)
            }
            runner.cancel()

            #expect(page.envelopes.count == 4 && page.hasMore)
            #expect(page.envelopes.map(\.sequence) == [1, 2, 3, 4])
            let sent = page.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count }
            let read = Int(blocks) * 8_192
            #expect(read > sent, "the counter saw the bodies sent: \(blocks) buffers")
            #expect(Double(read) <= 1.5 * Double(sent), "\(read) bytes of buffers read for \(sent) bytes sent")
        }
    }
}
