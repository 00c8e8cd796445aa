import Crypto
import Foundation
import Logging
import PostgresNIO

/// One named, frozen schema migration: once released, its SQL never changes (the
/// migrator refuses to start when an applied migration's checksum differs).
struct SyncMigration: Sendable {
    let name: String
    let sql: [String]

    /// SHA-256 of the statements, to detect an edited migration.
    var checksum: String {
        SHA256.hash(data: Data(sql.joined(separator: ";\n").utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Applies the server's migrations at startup, in one transaction under a PostgreSQL
/// advisory lock, so several instances starting together apply each migration once.
public enum SyncMigrator {
    /// The advisory lock's key (ASCII "MVSYNC01" as a big-endian Int64).
    static let advisoryLockKey: Int64 = 0x4D56_5359_4E43_3031

    /// The migrations, in order. Append only; never edit a released one.
    static let migrations: [SyncMigration] = [
        SyncMigration(name: "v1-core", sql: [
            """
            CREATE TABLE vaults (
                vault_id uuid PRIMARY KEY,
                verification_key bytea NOT NULL CHECK (octet_length(verification_key) = 32),
                last_sequence bigint NOT NULL DEFAULT 0 CHECK (last_sequence >= 0),
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE devices (
                vault_id uuid NOT NULL REFERENCES vaults (vault_id) ON DELETE CASCADE,
                device_id uuid NOT NULL,
                token_hash bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
                created_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz,
                revoked_by uuid,
                PRIMARY KEY (vault_id, device_id)
            )
            """,
            """
            CREATE TABLE envelopes (
                vault_id uuid NOT NULL,
                sequence bigint NOT NULL CHECK (sequence > 0),
                envelope_id uuid NOT NULL,
                record_key bytea NOT NULL CHECK (octet_length(record_key) = 32),
                device_id uuid NOT NULL,
                ciphertext bytea NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (vault_id, sequence),
                UNIQUE (vault_id, envelope_id),
                FOREIGN KEY (vault_id, device_id) REFERENCES devices (vault_id, device_id) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE keyrings (
                vault_id uuid PRIMARY KEY REFERENCES vaults (vault_id) ON DELETE CASCADE,
                generation bigint NOT NULL CHECK (generation >= 0),
                keyring bytea NOT NULL CHECK (octet_length(keyring) BETWEEN 1 AND 65536),
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE challenges (
                challenge_hash bytea PRIMARY KEY CHECK (octet_length(challenge_hash) = 32),
                vault_id uuid NOT NULL,
                device_id uuid NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX challenges_by_expiry ON challenges (expires_at)",
            "CREATE INDEX challenges_by_device ON challenges (vault_id, device_id)",
        ]),
        // The bytes each vault stores (ciphertext and record keys), kept by every push
        // under the vault's row lock, for the per-vault quota; filled for existing vaults.
        SyncMigration(name: "v2-vault-bytes", sql: [
            "ALTER TABLE vaults ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0 CHECK (stored_bytes >= 0)",
            """
            UPDATE vaults SET stored_bytes = coalesce((
                SELECT sum(octet_length(ciphertext) + octet_length(record_key)) FROM envelopes
                WHERE envelopes.vault_id = vaults.vault_id), 0)
            """,
        ]),
        // Tokens that expire (their age decides, so a changed lifetime applies to every
        // token; existing ones count from this migration) and are renewed with a proof of
        // the vault key: the token just replaced stays good for a renewal only, so a
        // device whose renewal answer was lost can renew again. Challenges asked for by a
        // device renewing its token, capped apart from anonymous ones. Invitations:
        // single-use, minted by an enrolled device of a vault registered with the
        // deployment secret, stored as SHA-256, spent by one registration, which records
        // the inviting vault.
        SyncMigration(name: "v3-token-lifetime-invitations", sql: [
            "ALTER TABLE devices ADD COLUMN token_issued_at timestamptz NOT NULL DEFAULT now()",
            """
            ALTER TABLE devices ADD COLUMN previous_token_hash bytea
                CHECK (previous_token_hash IS NULL OR octet_length(previous_token_hash) = 32)
            """,
            "CREATE INDEX devices_by_previous_token ON devices (previous_token_hash) WHERE previous_token_hash IS NOT NULL",
            "ALTER TABLE challenges ADD COLUMN for_renewal boolean NOT NULL DEFAULT false",
            "ALTER TABLE vaults ADD COLUMN invited_by uuid",
            """
            CREATE TABLE invitations (
                invitation_hash bytea PRIMARY KEY CHECK (octet_length(invitation_hash) = 32),
                vault_id uuid NOT NULL REFERENCES vaults (vault_id) ON DELETE CASCADE,
                device_id uuid NOT NULL,
                expires_at timestamptz NOT NULL,
                used_by_vault uuid
            )
            """,
            "CREATE INDEX invitations_by_vault ON invitations (vault_id)",
        ]),
        // The device list an app shows: when each device last called (to the minute,
        // written by authentication at most once a minute) and the name it gave itself,
        // sealed by the device under the vault's envelope key.
        SyncMigration(name: "v4-device-list", sql: [
            "ALTER TABLE devices ADD COLUMN last_seen_at timestamptz",
            """
            ALTER TABLE devices ADD COLUMN sealed_name bytea
                CHECK (sealed_name IS NULL OR octet_length(sealed_name) BETWEEN 1 AND 1024)
            """,
        ]),
        // Sync epochs (docs/sync.md, "Epochs"): the vault's current epoch and its epoch keys
        // sealed for the recovery kit; each device's certificate of the current epoch (the
        // JSON of SyncDeviceCertificate); the epoch each envelope was sealed in; and each
        // epoch's packages, one per remaining device, with the certificate of the device
        // that started it.
        SyncMigration(name: "v5-epochs", sql: [
            "ALTER TABLE vaults ADD COLUMN epoch bigint NOT NULL DEFAULT 0 CHECK (epoch BETWEEN 0 AND 4294967295)",
            """
            ALTER TABLE vaults ADD COLUMN epoch_keys bytea
                CHECK (epoch_keys IS NULL OR octet_length(epoch_keys) BETWEEN 1 AND 262144)
            """,
            """
            ALTER TABLE devices ADD COLUMN certificate bytea
                CHECK (certificate IS NULL OR octet_length(certificate) BETWEEN 1 AND 4096)
            """,
            // A constant default adds the column without rewriting the table; the check is
            // added NOT VALID (existing rows are 0), so no scan holds the table's lock.
            "ALTER TABLE envelopes ADD COLUMN epoch bigint NOT NULL DEFAULT 0",
            "ALTER TABLE envelopes ADD CONSTRAINT envelopes_epoch_check CHECK (epoch >= 0) NOT VALID",
            """
            CREATE TABLE epochs (
                vault_id uuid NOT NULL REFERENCES vaults (vault_id) ON DELETE CASCADE,
                epoch bigint NOT NULL CHECK (epoch > 0),
                started_by uuid NOT NULL,
                signer_certificate bytea NOT NULL CHECK (octet_length(signer_certificate) BETWEEN 1 AND 4096),
                started_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (vault_id, epoch)
            )
            """,
            """
            CREATE TABLE epoch_packages (
                vault_id uuid NOT NULL,
                epoch bigint NOT NULL,
                device_id uuid NOT NULL,
                sealed bytea NOT NULL CHECK (octet_length(sealed) BETWEEN 1 AND 1024),
                signature bytea NOT NULL CHECK (octet_length(signature) = 64),
                PRIMARY KEY (vault_id, epoch, device_id),
                FOREIGN KEY (vault_id, epoch) REFERENCES epochs (vault_id, epoch) ON DELETE CASCADE
            )
            """,
            // Pairings (a new device asking an enrolled one to approve it): the request as
            // posted, then the answer of a device of the vault; kept 10 minutes.
            """
            CREATE TABLE pairings (
                pairing_id uuid PRIMARY KEY,
                box_key bytea NOT NULL CHECK (octet_length(box_key) = 32),
                mac bytea NOT NULL CHECK (octet_length(mac) = 32),
                vault_id uuid REFERENCES vaults (vault_id) ON DELETE CASCADE,
                sealed bytea CHECK (sealed IS NULL OR octet_length(sealed) BETWEEN 1 AND 1024),
                answer_mac bytea CHECK (answer_mac IS NULL OR octet_length(answer_mac) = 32),
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX pairings_by_expiry ON pairings (expires_at)",
            // Signed pushes: the pushing device's signature of the envelopes' ids and
            // digests, with its certificate; each envelope points at the push that first
            // stored it.
            """
            CREATE TABLE push_signatures (
                id bigserial PRIMARY KEY,
                vault_id uuid NOT NULL REFERENCES vaults (vault_id) ON DELETE CASCADE,
                signer uuid NOT NULL,
                epoch bigint NOT NULL CHECK (epoch >= 0),
                entries bytea NOT NULL CHECK (octet_length(entries) BETWEEN 48 AND 24000),
                certificate bytea NOT NULL CHECK (octet_length(certificate) BETWEEN 1 AND 4096),
                signature bytea NOT NULL CHECK (octet_length(signature) = 64)
            )
            """,
            "ALTER TABLE envelopes ADD COLUMN signature_id bigint",
            """
            ALTER TABLE envelopes ADD CONSTRAINT envelopes_signature_fk FOREIGN KEY (signature_id)
                REFERENCES push_signatures (id) ON DELETE SET NULL NOT VALID
            """,
        ]),
    ]

    /// Applies the migrations not yet applied.
    ///
    /// - Throws: ``SyncMigrationError`` when an applied migration was edited or the
    ///   database knows a migration this server does not (a newer server ran); a
    ///   PostgreSQL error, or `SyncServerError` (503) when PostgreSQL closed the
    ///   connection meanwhile, otherwise. Nothing is applied then.
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await migrate(client, logger: logger, through: migrations.count)
    }

    /// Applies the first `count` migrations not yet applied: an older server's schema,
    /// for the tests of an upgrade.
    static func migrate(_ client: PostgresClient, logger: Logger, through count: Int) async throws {
        let migrations = Array(migrations.prefix(count))
        // Guarded queries, like every request's (PostgresConnection+Guarded.swift): a
        // database restart during startup fails the start instead of hanging it.
        try await SyncStore(client: client, logger: logger).transaction { connection in
            try await connection.guardedQuery("SELECT pg_advisory_xact_lock(\(advisoryLockKey))", logger: logger)
            try await connection.guardedQuery("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    name text PRIMARY KEY,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied: [String: String] = [:]
            for try await (name, checksum) in try await connection.guardedQuery(
                "SELECT name, checksum FROM schema_migrations", logger: logger
            ).decode((String, String).self) {
                applied[name] = checksum
            }
            let known = Set(migrations.map(\.name))
            if let unknown = applied.keys.sorted().first(where: { !known.contains($0) }) {
                throw SyncMigrationError(kind: .unknownMigration, migration: unknown)
            }
            for migration in migrations {
                if let checksum = applied[migration.name] {
                    guard checksum == migration.checksum else {
                        throw SyncMigrationError(kind: .editedMigration, migration: migration.name)
                    }
                    continue
                }
                for statement in migration.sql {
                    try await connection.guardedQuery(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.guardedQuery(
                    "INSERT INTO schema_migrations (name, checksum) VALUES (\(migration.name), \(migration.checksum))",
                    logger: logger)
                logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
            }
        }
    }
}

/// Why the server refused to migrate its database.
public struct SyncMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Kind: Sendable, Hashable {
        /// An applied migration's SQL differs from this server's.
        case editedMigration
        /// The database has a migration this server does not know (a newer server).
        case unknownMigration
    }

    /// The kind of refusal.
    public let kind: Kind
    /// The migration's name.
    public let migration: String

    /// Creates an error.
    public init(kind: Kind, migration: String) {
        self.kind = kind
        self.migration = migration
    }

    /// A sentence for the operator.
    public var description: String {
        switch kind {
        case .editedMigration: "migration \(migration) was applied with different SQL: migrations are frozen"
        case .unknownMigration: "the database has migration \(migration), unknown to this server: is a newer server running?"
        }
    }
}
