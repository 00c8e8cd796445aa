import Foundation
import Logging
import MedVaultSyncServer
import PostgresNIO
import Testing

@Suite("Sync server configuration")
struct SyncServerConfigurationTests {
    @Test("Defaults: loopback 8080, PostgreSQL on 127.0.0.1:5432")
    func defaults() throws {
        let configuration = try SyncServerConfiguration(environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.database.host == "127.0.0.1")
        #expect(configuration.database.port == 5432)
        #expect(configuration.limits == SyncServerLimits())
    }

    @Test("A database URL and limits are read from the environment")
    func fromEnvironment() throws {
        let configuration = try SyncServerConfiguration(environment: [
            "MEDVAULT_SYNC_DATABASE_URL": "postgres://sync:secret@db.internal:6543/vaults",
            "MEDVAULT_SYNC_HOST": "0.0.0.0", "MEDVAULT_SYNC_PORT": "9000",
            "MEDVAULT_SYNC_MAX_PUSH_ENVELOPES": "42", "MEDVAULT_SYNC_RATE_PER_SECOND": "2.5",
            "PGSSLMODE": "verify-full", "LOG_LEVEL": "debug", "MEDVAULT_SYNC_IDLE_TIMEOUT_SECONDS": "7",
            "MEDVAULT_SYNC_METRICS_TOKEN": "scrape-0123456789abcdef",
            "MEDVAULT_SYNC_TRUSTED_PROXIES": "10.0.0.2, 0:0:0:0:0:0:0:1, ::ffff:192.0.2.4",
            "MEDVAULT_SYNC_ORIGIN": "HTTPS://Sync.Example.org:443/",
        ])
        #expect(configuration.origin == "https://sync.example.org")
        #expect(configuration.metricsToken == "scrape-0123456789abcdef")
        // As the server prints a peer: compressed IPv6, IPv4-mapped addresses as IPv4.
        #expect(configuration.trustedProxies == ["10.0.0.2", "::1", "192.0.2.4"])
        #expect(configuration.database.host == "db.internal")
        #expect(configuration.database.port == 6543)
        #expect(configuration.database.username == "sync")
        #expect(configuration.database.password == "secret")
        #expect(configuration.database.database == "vaults")
        #expect(configuration.host == "0.0.0.0" && configuration.port == 9000)
        #expect(configuration.limits.maximumEnvelopesPerPush == 42)
        #expect(configuration.limits.requestsPerSecond == 2.5)
        #expect(configuration.limits.idleTimeoutSeconds == 7)
        #expect(configuration.logLevel == .debug)
        #expect(try SyncServerConfiguration(environment: [:]).limits.idleTimeoutSeconds == 30)
        #expect(throws: SyncConfigurationError.self) {
            try SyncServerConfiguration(environment: ["MEDVAULT_SYNC_IDLE_TIMEOUT_SECONDS": "0"])
        }
    }

    @Test("A non-loopback PostgreSQL host gets verified TLS by default and refuses disable, prefer and require unless plaintext is allowed; loopback keeps them")
    func databaseTLS() throws {
        for source in [["PGHOST": "db.internal"], ["MEDVAULT_SYNC_DATABASE_URL": "postgres://sync@10.1.2.3/vaults"]] {
            _ = try SyncServerConfiguration(environment: source)
            _ = try SyncServerConfiguration(environment: source.merging(["PGSSLMODE": "verify-full"]) { $1 })
            for mode in ["disable", "prefer", "require"] {
                #expect(throws: SyncConfigurationError(variable: "PGSSLMODE"), "\(mode) to \(source)") {
                    try SyncServerConfiguration(environment: source.merging(["PGSSLMODE": mode]) { $1 })
                }
                _ = try SyncServerConfiguration(environment: source.merging(
                    ["PGSSLMODE": mode, "MEDVAULT_SYNC_DATABASE_ALLOW_PLAINTEXT": "1"]) { $1 })
            }
        }
        // A host *name* that starts like a loopback address is remote.
        #expect(throws: SyncConfigurationError(variable: "PGSSLMODE")) {
            try SyncServerConfiguration(environment: ["PGHOST": "127.db.example.org", "PGSSLMODE": "disable"])
        }
        for host in ["127.0.0.1", "127.8.9.10", "localhost", "::1"] {
            for mode in ["disable", "prefer", "require", "verify-full"] {
                _ = try SyncServerConfiguration(environment: ["PGHOST": host, "PGSSLMODE": mode])
            }
        }
    }

    @Test("A socket folder in PGHOST connects through the unix socket")
    func unixSocket() throws {
        let configuration = try SyncServerConfiguration(environment: ["PGHOST": "/run/postgresql", "PGPORT": "5433"])
        #expect(configuration.database.unixSocketPath == "/run/postgresql/.s.PGSQL.5433")
    }

    @Test("A malformed variable is named, its value (maybe a password) never shown")
    func malformed() throws {
        for (name, value) in [("MEDVAULT_SYNC_PORT", "80a"), ("MEDVAULT_SYNC_PORT", "70000"),
                              ("MEDVAULT_SYNC_DATABASE_URL", "mysql://u:hunter2@h/d"), ("PGSSLMODE", "sometimes"),
                              ("MEDVAULT_SYNC_RATE_BURST", "-1"), ("LOG_LEVEL", "loud"),
                              ("MEDVAULT_SYNC_METRICS_TOKEN", "short"), ("MEDVAULT_SYNC_TRUSTED_PROXIES", "10.0.0.1, proxy.lan"),
                              ("MEDVAULT_SYNC_ORIGIN", "https://sync.example.org/v1"), ("MEDVAULT_SYNC_ORIGIN", "ftp://sync.example.org"),
                              ("MEDVAULT_SYNC_ORIGIN", "sync.example.org"),
                              // Invitations without a secret: nobody could register the first vault.
                              ("MEDVAULT_SYNC_REGISTRATION_INVITATIONS", "1"), ("MEDVAULT_SYNC_REGISTRATION_INVITATIONS", "yes"),
                              ("MEDVAULT_SYNC_TOKEN_LIFETIME_SECONDS", "10"), ("MEDVAULT_SYNC_INVITATION_LIFETIME_SECONDS", "0")] {
            #expect(throws: SyncConfigurationError(variable: name)) {
                try SyncServerConfiguration(environment: [name: value])
            }
            #expect(!SyncConfigurationError(variable: name).description.contains(value))
        }
    }

    @Test("Token lifetime and invitations are read from the environment; invitations come with the deployment secret")
    func tokensAndInvitations() throws {
        let configuration = try SyncServerConfiguration(environment: [
            "MEDVAULT_SYNC_REGISTRATION_SECRET": "deployment-secret-0123456789",
            "MEDVAULT_SYNC_REGISTRATION_INVITATIONS": "1", "MEDVAULT_SYNC_INVITATION_LIFETIME_SECONDS": "3600",
            "MEDVAULT_SYNC_MAX_INVITATIONS": "3", "MEDVAULT_SYNC_TOKEN_LIFETIME_SECONDS": "86400",
        ])
        #expect(configuration.invitationsEnabled)
        #expect(configuration.limits.invitationLifetimeSeconds == 3_600)
        #expect(configuration.limits.maximumPendingInvitations == 3)
        #expect(configuration.limits.tokenLifetimeSeconds == 86_400)
        #expect(try SyncServerConfiguration(environment: [:]).invitationsEnabled == false)
    }
}
