import Foundation
import Logging
@testable import MedVaultSyncServer
import MedVaultSyncWire
import PostgresNIO
import Testing

/// What a pull costs PostgreSQL: the page is cut from the candidates' sizes, so the
/// bodies of the candidates a page leaves out are never read (SyncStore+Envelopes.swift).
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
            // The buffers one transaction asked for, in the envelopes' table, its TOAST table
            // (where large ciphertexts live) and their indexes: counted per transaction, so
            // read at once, before the transaction ends.
            let (page, blocks) = try await Self.withConnection(to: server) { connection, logger in
                try await connection.query("BEGIN", logger: logger)
                let page = try await SyncStore.pullPage(connection, logger: logger, vaultID: vault.id, after: 0,
                                                        limit: SyncProtocolLimits.maximumPullLimit,
                                                        maximumBytes: SyncProtocolLimits.maximumPullBytes)
                let blocks = try await Self.envelopeBlocksFetched(connection, logger)
                try await connection.query("COMMIT", logger: logger)
                return (page, blocks)
            }

            #expect(page.envelopes.count == 4 && page.hasMore)
            #expect(page.envelopes.map(\.sequence) == [1, 2, 3, 4])
            let sent = page.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count }
            let read = Int(blocks) * 8_192
            #expect(read > sent, "the counter saw the bodies sent: \(blocks) buffers")
            #expect(Double(read) <= 1.5 * Double(sent), "\(read) bytes of buffers read for \(sent) bytes sent")
        }
    }

    @Test("The pull reads by the primary key whatever the statistics say: with 30 vaults of 1,000 envelopes analysed, each read is a bounded range of the primary key")
    func pullPlanUsesPrimaryKey() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            _ = try await server.sql("""
                \(Self.otherVaults(30, envelopesEach: 1_000));
                \(Self.envelopes(of: vault.id, device: device.id, sequences: 1...600));
                ANALYZE
                """)
            let queries = [
                SyncStore.sizesQuery(vaultID: vault.id, after: 100, limit: SyncProtocolLimits.maximumPullLimit),
                SyncStore.bodiesQuery(vaultID: vault.id, after: 100, through: 400, limit: SyncProtocolLimits.maximumPullLimit),
            ]
            for query in queries {
                let plan = try await Self.withConnection(to: server) { connection, logger in
                    var lines: [String] = []
                    for try await line in try await connection.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: logger
                    ).decode(String.self) { lines.append(line) }
                    return lines.joined(separator: "\n")
                }
                // The read of envelopes is a range of the primary key, (vault_id, sequence)
                // bounded on both sides: never the whole table or the whole vault.
                #expect(!plan.contains("Seq Scan on envelopes") && !plan.contains("Hash Join"), "\(plan)")
                let conditions = plan.split(separator: "\n").filter { $0.contains("Index Cond: ((vault_id = ") }
                #expect(conditions.count == 1 && conditions.allSatisfy {
                    $0.contains("sequence > ") && $0.contains("sequence <= ")
                }, "\(plan)")
            }
        }
    }

    /// One stored envelope as the page rule sees it.
    struct StoredRow {
        let sequence: Int64
        let size: Int
        let signature: Int?
    }

    /// The page rule over whole rows, as the server applied it when it read every
    /// candidate's body: the oracle of ``cutMatchesRule()``. Returns the sequences sent, `hasMore`, and the
    /// signatures in the order the page first names them.
    static func expectedPage(_ rows: [StoredRow], entries: [Int], after: Int64, limit: Int, maximumBytes: Int)
        -> (sequences: [Int64], hasMore: Bool, signatures: [Int]) {
        var sequences: [Int64] = []
        var bytes = 0
        var hasMore = false
        var signatures: [Int] = []
        for row in rows.filter({ $0.sequence > after }).prefix(limit + 1) {
            let signatureBytes = row.signature.map { signatures.contains($0) ? 0 : entries[$0] + SyncStore.signatureOverhead } ?? 0
            if hasMore || sequences.count == limit || (!sequences.isEmpty && bytes + row.size + signatureBytes > maximumBytes) {
                hasMore = true
                continue
            }
            bytes += row.size + signatureBytes
            if let signature = row.signature, !signatures.contains(signature) { signatures.append(signature) }
            sequences.append(row.sequence)
        }
        return (sequences, hasMore, signatures)
    }

    @Test("A page read as sizes then bodies is the page rule, envelope by envelope: random sizes, signatures shared by runs of envelopes, every limit, cursor and byte budget")
    func cutMatchesRule() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            // Five signatures of 1 to 60 entries, each with its own entries (to tell them apart).
            let entries = [48, 480, 2_880, 96, 1_440]
            var signatureIDs: [Int64] = []
            for (index, length) in entries.enumerated() {
                let certificate = try SyncDeviceCertificate(
                    deviceID: device.id, epoch: 0, signingKey: Data(repeating: 1, count: 32),
                    boxKey: Data(repeating: 2, count: 32), signature: Data(repeating: 3, count: 64))
                let json = try SyncStore.encode(certificate).map { String(format: "%02x", $0) }.joined()
                let id = try await server.sql("""
                    INSERT INTO push_signatures (vault_id, signer, epoch, entries, certificate, signature)
                    VALUES ('\(vault.id)', '\(device.id)', 0, decode(repeat('\(String(format: "%02x", index + 1))', \(length)), 'hex'),
                            decode('\(json)', 'hex'), decode(repeat('04', 64), 'hex')) RETURNING id
                    """)
                signatureIDs.append(try #require(Int64(id.split(separator: "\n").first.map(String.init) ?? "")))
            }
            // Sixty envelopes of 28 bytes to 6 KB, in runs under one signature or none.
            var random = SystemRandomNumberGenerator()
            var rows: [StoredRow] = []
            var signature: Int? = nil
            for sequence in 1...60 {
                if Int.random(in: 0..<4, using: &random) == 0 {
                    signature = Bool.random(using: &random) ? nil : Int.random(in: 0..<entries.count, using: &random)
                }
                rows.append(StoredRow(sequence: Int64(sequence), size: Int.random(in: 28...6_000, using: &random),
                                      signature: signature))
            }
            let values = rows.map { row in
                "('\(vault.id)', \(row.sequence), gen_random_uuid(), decode(repeat('ab', 32), 'hex'), '\(device.id)', "
                    + "decode(repeat('cd', \(row.size)), 'hex'), \(row.signature.map { String(signatureIDs[$0]) } ?? "NULL"))"
            }
            _ = try await server.sql("""
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext, signature_id)
                VALUES \(values.joined(separator: ", "));
                UPDATE vaults SET last_sequence = 60 WHERE vault_id = '\(vault.id)'
                """)
            let layout = rows.map { "\($0.size)/\($0.signature.map(String.init) ?? "-")" }.joined(separator: " ")

            try await Self.withConnection(to: server) { connection, logger in
                for after: Int64 in [0, 1, 17, 58, 59, 60, 99, .max - 500, .max] {
                    for limit in [1, 2, 7, 500] {
                        for maximumBytes in [1, 3_000, 9_000, 40_000, 4 << 20] {
                            let page = try await SyncStore.pullPage(connection, logger: logger, vaultID: vault.id,
                                                                    after: after, limit: limit, maximumBytes: maximumBytes)
                            let expected = Self.expectedPage(rows, entries: entries, after: after, limit: limit,
                                                             maximumBytes: maximumBytes)
                            let context = "after \(after), limit \(limit), bytes \(maximumBytes); rows \(layout)"
                            #expect(page.envelopes.map(\.sequence) == expected.sequences, "\(context)")
                            #expect(page.hasMore == expected.hasMore, "\(context)")
                            #expect(page.lastSequence == (expected.sequences.last ?? after), "\(context)")
                            // The signatures, in first-named order, and each envelope pointing at its own.
                            let named = (page.signatures ?? []).map { entries.firstIndex(of: $0.entries.count) }
                            #expect(named == expected.signatures.map { Optional($0) }, "\(context)")
                            for envelope in page.envelopes {
                                let own = rows[Int(envelope.sequence) - 1].signature
                                #expect(envelope.signature.map { named[$0] } == own.map { Optional($0) }, "\(context)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// SQL that adds `count` vaults of one device each holding `each` envelopes.
    static func otherVaults(_ count: Int, envelopesEach each: Int) -> String {
        """
        WITH v AS (
            INSERT INTO vaults (vault_id, verification_key) SELECT gen_random_uuid(), decode(repeat('01', 32), 'hex')
            FROM generate_series(1, \(count)) RETURNING vault_id
        ), d AS (
            INSERT INTO devices (vault_id, device_id, token_hash)
            SELECT vault_id, gen_random_uuid(), sha256(vault_id::text::bytea) FROM v RETURNING vault_id, device_id
        )
        INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
        SELECT d.vault_id, n, gen_random_uuid(), sha256(n::text::bytea), d.device_id, sha512(n::text::bytea)
        FROM d, generate_series(1, \(each)) n
        """
    }

    /// SQL that adds envelopes numbered `sequences` to `vault`, pushed by `device`.
    static func envelopes(of vault: UUID, device: UUID, sequences: ClosedRange<Int>) -> String {
        """
        INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext)
        SELECT '\(vault)', n, gen_random_uuid(), sha256(n::text::bytea), '\(device)', sha512(n::text::bytea)
        FROM generate_series(\(sequences.lowerBound), \(sequences.upperBound)) n
        """
    }

    /// The buffers the current transaction asked for in the envelopes' table, its TOAST
    /// table and their indexes (counted per transaction: read before it ends).
    static func envelopeBlocksFetched(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        try await envelopeStatistic("pg_stat_get_xact_blocks_fetched", connection, logger)
    }

    /// `function` (a `pg_stat_get_xact_…` counter) summed over the envelopes' table, its
    /// TOAST table and their indexes.
    static func envelopeStatistic(_ function: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> Int64 {
        var total: Int64 = 0
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            WITH tables AS (
                SELECT oid FROM pg_class WHERE oid = 'envelopes'::regclass
                UNION SELECT reltoastrelid FROM pg_class WHERE oid = 'envelopes'::regclass
            )
            SELECT coalesce(sum(\(function)(oid)), 0)::bigint FROM (
                SELECT oid FROM tables UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM tables)
            ) relations
            """), logger: logger)
        for try await count in rows.decode(Int64.self) { total = count }
        return total
    }

    /// Runs `body` on a connection of the test's own to `server`'s database.
    static func withConnection<T: Sendable>(
        to server: TestServer, _ body: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = Logger(label: "test")
        let client = PostgresClient(configuration: TestServer.postgresConfiguration(server.postgres, server.database),
                                    backgroundLogger: logger)
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        return try await client.withConnection { connection in try await body(connection, logger) }
    }
}
