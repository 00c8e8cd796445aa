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

    @Test("The pull reads by the primary key whatever the statistics say: with 30 vaults of 1,000 envelopes analysed, both reads are ranges of the primary key")
    func pullPlanUsesPrimaryKey() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            _ = try await server.sql("""
                WITH v AS (
                    INSERT INTO vaults (vault_id, verification_key) SELECT gen_random_uuid(), decode(repeat('01', 32), 'hex')
                    FROM generate_series(1, 30) RETURNING vault_id
                ), d AS (
                    INSERT INTO devices (vault_id, device_id, token_hash)
                    SELECT vault_id, gen_random_uuid(), sha256(vault_id::text::bytea) FROM v RETURNING vault_id, device_id
                )
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
                SELECT d.vault_id, n, gen_random_uuid(), sha256(n::text::bytea), d.device_id, sha512(n::text::bytea)
                FROM d, generate_series(1, 1000) n;
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
                SELECT '\(vault.id)', n, gen_random_uuid(), sha256(n::text::bytea), '\(device.id)', sha512(n::text::bytea)
                FROM generate_series(1, 600) n;
                ANALYZE
                """)
            let logger = Logger(label: "test")
            let client = PostgresClient(configuration: TestServer.postgresConfiguration(server.postgres, server.database),
                                        backgroundLogger: logger)
            let runner = Task { await client.run() }
            defer { runner.cancel() }
            let query = SyncStore.pullQuery(vaultID: vault.id, after: 100, limit: SyncProtocolLimits.maximumPullLimit,
                                            maximumBytes: SyncProtocolLimits.maximumPullBytes)
            let plan = try await client.withConnection { connection in
                var lines: [String] = []
                for try await line in try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: logger
                ).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            runner.cancel()
            // Both reads of envelopes (the sizes, then the bodies) are ranges of the primary
            // key: (vault_id, sequence) bounded, never the whole table or the whole vault.
            #expect(!plan.contains("Seq Scan on envelopes") && !plan.contains("Hash Join"), "\(plan)")
            let conditions = plan.split(separator: "\n").filter { $0.contains("Index Cond:") }
            #expect(conditions.count == 2 && conditions.allSatisfy { $0.contains("vault_id = ") && $0.contains("sequence > ") },
                    "\(plan)")
        }
    }
}
