import Foundation
import Logging
import PostgresNIO

/// Everything the server is configured with, read from environment variables.
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `MEDVAULT_SYNC_DATABASE_URL` | `postgres://user:password@host:port/database` | — |
/// | `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE` | used when no URL is set; `PGHOST` may be a socket folder | `127.0.0.1`, `5432`, `medvault_sync`, none, `medvault_sync` |
/// | `PGSSLMODE` | `disable`, `prefer` or `require` | `prefer` (`disable` for a socket) |
/// | `MEDVAULT_SYNC_HOST`, `MEDVAULT_SYNC_PORT` | listen address (port 0: any free port) | `127.0.0.1`, `8080` |
/// | `MEDVAULT_SYNC_MAX_PUSH_BYTES`, `MEDVAULT_SYNC_MAX_BODY_BYTES` | body limits | 8 MiB, 128 KiB |
/// | `MEDVAULT_SYNC_MAX_PUSH_ENVELOPES`, `MEDVAULT_SYNC_MAX_PULL_LIMIT`, `MEDVAULT_SYNC_MAX_PULL_BYTES` | batch limits | 500, 500, 4 MiB |
/// | `MEDVAULT_SYNC_RATE_PER_SECOND`, `MEDVAULT_SYNC_RATE_BURST` | per-device token bucket | 50, 200 |
/// | `MEDVAULT_SYNC_DATABASE_CONNECTIONS` | pool size | 20 |
/// | `LOG_LEVEL` | swift-log level | `info` |
public struct SyncServerConfiguration: Sendable {
    /// The listen host.
    public var host: String = "127.0.0.1"
    /// The listen port (0: any free port).
    public var port: Int = 8080
    /// The request limits.
    public var limits = SyncServerLimits()
    /// How to reach PostgreSQL.
    public var database: PostgresClient.Configuration
    /// The log level.
    public var logLevel: Logger.Level = .info

    /// Creates a configuration with default limits.
    public init(database: PostgresClient.Configuration) {
        self.database = database
    }

    /// Reads the configuration from environment variables (see the type's table).
    ///
    /// - Throws: ``SyncConfigurationError`` naming the variable that is malformed.
    public init(environment: [String: String]) throws {
        func integer(_ name: String, _ fallback: Int, range: ClosedRange<Int> = 1...Int.max) throws -> Int {
            guard let text = environment[name] else { return fallback }
            guard let value = Int(text), range.contains(value) else { throw SyncConfigurationError(variable: name) }
            return value
        }
        func number(_ name: String, _ fallback: Double) throws -> Double {
            guard let text = environment[name] else { return fallback }
            guard let value = Double(text), value > 0, value.isFinite else { throw SyncConfigurationError(variable: name) }
            return value
        }

        var database: PostgresClient.Configuration
        let sslMode = environment["PGSSLMODE"] ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        default: throw SyncConfigurationError(variable: "PGSSLMODE")
        }
        if let url = environment["MEDVAULT_SYNC_DATABASE_URL"] {
            guard let components = URLComponents(string: url),
                  components.scheme == "postgres" || components.scheme == "postgresql",
                  let host = components.host, !host.isEmpty else {
                throw SyncConfigurationError(variable: "MEDVAULT_SYNC_DATABASE_URL")
            }
            let name = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            database = .init(host: host, port: components.port ?? 5432,
                             username: components.user ?? "medvault_sync", password: components.password,
                             database: name.isEmpty ? "medvault_sync" : name, tls: tls)
        } else {
            let host = environment["PGHOST"] ?? "127.0.0.1"
            let user = environment["PGUSER"] ?? "medvault_sync"
            let name = environment["PGDATABASE"] ?? "medvault_sync"
            let port = try integer("PGPORT", 5432, range: 1...65535)
            if host.hasPrefix("/") {
                database = .init(unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user,
                                 password: environment["PGPASSWORD"], database: name)
            } else {
                database = .init(host: host, port: port, username: user, password: environment["PGPASSWORD"],
                                 database: name, tls: tls)
            }
        }
        database.options.maximumConnections = try integer("MEDVAULT_SYNC_DATABASE_CONNECTIONS", 20)
        self.database = database

        host = environment["MEDVAULT_SYNC_HOST"] ?? "127.0.0.1"
        port = try integer("MEDVAULT_SYNC_PORT", 8080, range: 0...65535)
        limits.maximumPushBytes = try integer("MEDVAULT_SYNC_MAX_PUSH_BYTES", limits.maximumPushBytes)
        limits.maximumOtherBodyBytes = try integer("MEDVAULT_SYNC_MAX_BODY_BYTES", limits.maximumOtherBodyBytes)
        limits.maximumEnvelopesPerPush = try integer("MEDVAULT_SYNC_MAX_PUSH_ENVELOPES", limits.maximumEnvelopesPerPush)
        limits.maximumPullLimit = try integer("MEDVAULT_SYNC_MAX_PULL_LIMIT", limits.maximumPullLimit)
        limits.maximumPullBytes = try integer("MEDVAULT_SYNC_MAX_PULL_BYTES", limits.maximumPullBytes)
        limits.requestsPerSecond = try number("MEDVAULT_SYNC_RATE_PER_SECOND", limits.requestsPerSecond)
        limits.burst = try number("MEDVAULT_SYNC_RATE_BURST", limits.burst)
        limits.idleTimeoutSeconds = try integer("MEDVAULT_SYNC_IDLE_TIMEOUT_SECONDS", limits.idleTimeoutSeconds,
                                                range: 1...3_600)
        if let level = environment["LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level) else { throw SyncConfigurationError(variable: "LOG_LEVEL") }
            logLevel = parsed
        }
    }
}

/// A malformed environment variable. Names the variable, never its value (it may hold a
/// password).
public struct SyncConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The variable's name.
    public let variable: String

    /// Creates an error for `variable`.
    public init(variable: String) {
        self.variable = variable
    }

    /// A sentence for the operator.
    public var description: String { "environment variable \(variable) is malformed" }
}
