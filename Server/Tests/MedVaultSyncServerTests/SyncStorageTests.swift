import Crypto
import Foundation
import Logging
@testable import MedVaultSyncServer
import MedVaultSyncWire
import PostgresNIO
import Testing

/// What the database holds: nothing in clear (pg_dump scans) and migrations that are
/// applied once, under a lock, and frozen.
@Suite("Sync server storage", .serialized, .timeLimit(.minutes(3)))
struct SyncStorageTests {
    static let markers = ["Zyxmarkerpatient", "Qwmarkernote", "Vbmarkertable", "Jkmarkerrecordid", "Pomarkerkeyring",
                          "Ñandúmarkeracute"]

    @Test("pg_dump after a scenario holds no marker (UTF-8, UTF-16) and no key, token or signature material")
    func dumpHoldsNothingInClear() async throws {
        let (dump, secrets) = try await TestServer.with { server -> (Data, [Data]) in
            let vault = TestVault()
            let keyringText = "slots for \(Self.markers[4]) \(Self.markers[0])"
            let first = try await TestDevice.register(vault, client: server.client,
                                                      keyring: try vault.sealedKeyring(keyringText))
            let second = try await TestDevice.join(vault, client: server.client)
            var envelopes: [SyncEnvelope] = []
            for (index, marker) in Self.markers.enumerated() {
                let plaintext = #"{"table":"\#(Self.markers[2])","id":"\#(Self.markers[3])-\#(index)","name":"\#(marker)","note":"\#(Self.markers[1])"}"#
                envelopes.append(try vault.seal(plaintext, record: "\(Self.markers[2])/\(Self.markers[3])-\(index)"))
            }
            _ = try await first.pushOK(envelopes)
            _ = try await second.pushOK([try vault.seal(Self.markers.joined(separator: " "), record: Self.markers[0])])
            let update = try SyncKeyringUpdate(expectedGeneration: 1, keyring: try SyncKeyringBlob(
                generation: 2, keyring: try vault.sealedKeyring(keyringText + " v2")))
            #expect(try await first.client.send("PUT", "/v1/vaults/\(vault.id)/keyring", token: first.token,
                                                json: update).status == 200)
            // Sanity: the scenario's data is in the database, sealed.
            #expect(try await second.pullAll().count == Self.markers.count + 1)

            var secrets: [Data] = [
                vault.signingKey.rawRepresentation,
                vault.envelopeKey.withUnsafeBytes { Data($0) },
                vault.recordKeyKey.withUnsafeBytes { Data($0) },
                Data(first.token.utf8), Data(second.token.utf8),
            ]
            secrets += Self.markers.map { Data($0.utf8) }
            return (try await server.postgres.dump(server.database), secrets)
        }
        #expect(dump.count > 1_000)
        let dumpText = String(decoding: dump, as: UTF8.self)
        #expect(dumpText.contains("COPY public.envelopes"), "the dump holds the envelopes table")
        for marker in Self.markers {
            for encoding in [String.Encoding.utf8, .utf16LittleEndian, .utf16BigEndian] {
                let bytes = try #require(marker.data(using: encoding))
                #expect(dump.range(of: bytes) == nil, "\(marker) in \(encoding)")
            }
            #expect(!dumpText.lowercased().contains(marker.lowercased()))
        }
        for secret in secrets {
            let hex = secret.map { String(format: "%02x", $0) }.joined()
            #expect(dump.range(of: secret) == nil)
            #expect(!dumpText.contains(hex), "a secret's hex is in the dump")
            #expect(!dumpText.contains(secret.base64EncodedString()))
        }
    }

    @Test("Migrations: several instances starting together apply each once; a second start changes nothing")
    func concurrentMigrations() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        try await withClient(postgres, database) { client, logger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await SyncMigrator.migrate(client, logger: logger) } }
                try await group.waitForAll()
            }
            try await SyncMigrator.migrate(client, logger: logger)
        }
        #expect(try await postgres.psql(database, "SELECT string_agg(name, ',') FROM schema_migrations") == "v1-core,v2-vault-bytes,v3-token-lifetime-invitations,v4-device-list,v5-epochs")
        #expect(try await postgres.psql(database, """
            SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'
            """) == "11")
    }

    @Test("Upgrading a v2 database: its devices' tokens count their lifetime from the upgrade, none is expired or renewable by an old token")
    func tokenLifetimeUpgrade() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        try await withClient(postgres, database) { client, logger in
            try await SyncMigrator.migrate(client, logger: logger, through: 2)
            _ = try await postgres.psql(database, """
                INSERT INTO vaults (vault_id, verification_key) VALUES ('\(UUID())', decode(repeat('ab', 32), 'hex'));
                INSERT INTO devices (vault_id, device_id, token_hash, created_at)
                SELECT vault_id, '\(UUID())', decode(repeat('cd', 32), 'hex'), now() - interval '400 days' FROM vaults;
                """)
            try await SyncMigrator.migrate(client, logger: logger)
            let store = SyncStore(client: client, logger: logger)
            let device = try #require(try await store.device(tokenHash: Data(repeating: 0xCD, count: 32),
                                                               lifetimeSeconds: SyncServerLimits().tokenLifetimeSeconds))
            #expect(!device.tokenExpired)
            #expect(try await postgres.psql(database, "SELECT count(*) FROM devices WHERE previous_token_hash IS NULL") == "1")
        }
    }

    @Test("An edited or unknown migration stops the server before it changes anything")
    func frozenMigrations() async throws {
        let postgres = try await TestPostgres.get()
        let edited = try await postgres.makeDatabase()
        let unknown = try await postgres.makeDatabase()
        try await withClient(postgres, edited) { client, logger in
            try await SyncMigrator.migrate(client, logger: logger)
        }
        _ = try await postgres.psql(edited, "UPDATE schema_migrations SET checksum = 'x'")
        try await withClient(postgres, edited) { client, logger in
            await #expect(throws: SyncMigrationError(kind: .editedMigration, migration: "v1-core")) {
                try await SyncMigrator.migrate(client, logger: logger)
            }
        }
        _ = try await postgres.psql(unknown, """
            CREATE TABLE schema_migrations (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
            INSERT INTO schema_migrations (name, checksum) VALUES ('v9-future', 'y')
            """)
        try await withClient(postgres, unknown) { client, logger in
            await #expect(throws: SyncMigrationError(kind: .unknownMigration, migration: "v9-future")) {
                try await SyncMigrator.migrate(client, logger: logger)
            }
        }
        #expect(try await postgres.psql(unknown, "SELECT count(*) FROM pg_tables WHERE tablename = 'envelopes'") == "0")
    }

    func withClient(_ postgres: TestPostgres, _ database: String,
                    _ body: @Sendable (PostgresClient, Logger) async throws -> Void) async throws {
        let client = PostgresClient(configuration: TestServer.postgresConfiguration(postgres, database),
                                    backgroundLogger: Logger(label: "test"))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        try await body(client, Logger(label: "test"))
        runner.cancel()
        await runner.value
    }
}
