import Foundation
import Logging
import MedVaultSyncWire
import NIOCore
import NIOSSL
import PostgresNIO

/// Everything the server is configured with, read from environment variables.
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `MEDVAULT_SYNC_DATABASE_URL` | `postgres://user:password@host:port/database` | — |
/// | `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE` | used when no URL is set; `PGHOST` may be a socket folder | `127.0.0.1`, `5432`, `medvault_sync`, none, `medvault_sync` |
/// | `PGSSLMODE` | `disable`, `prefer`, `require` (all three only for a loopback host or a socket), `verify-full` (the certificate checked against the system's roots and the host name) | `prefer` for a loopback host, `verify-full` for any other; a socket never uses TLS |
/// | `MEDVAULT_SYNC_DATABASE_ALLOW_PLAINTEXT` | `1` lets a non-loopback host use `disable`, `prefer` or `require` (a network attacker can read or downgrade those) | — |
/// | `MEDVAULT_SYNC_HOST`, `MEDVAULT_SYNC_PORT` | listen address (port 0: any free port) | `127.0.0.1`, `8080` |
/// | `MEDVAULT_SYNC_MAX_PUSH_BYTES`, `MEDVAULT_SYNC_MAX_BODY_BYTES` | body limits | 8 MiB, 128 KiB |
/// | `MEDVAULT_SYNC_MAX_PUSH_ENVELOPES`, `MEDVAULT_SYNC_MAX_PULL_LIMIT`, `MEDVAULT_SYNC_MAX_PULL_BYTES` | batch limits | 500, 500, 4 MiB |
/// | `MEDVAULT_SYNC_RATE_PER_SECOND`, `MEDVAULT_SYNC_RATE_BURST` | per-device token bucket | 50, 200 |
/// | `MEDVAULT_SYNC_DATABASE_CONNECTIONS` | pool size | 20 |
/// | `MEDVAULT_SYNC_METRICS_TOKEN` | the bearer token `GET /metrics` requires; without it `/metrics` is not served | — |
/// | `MEDVAULT_SYNC_REGISTRATION_SECRET` | the deployment secret `POST /v1/vaults` requires in `MedVault-Registration-Secret` (16 or more visible ASCII characters); unset: registration is open | — |
/// | `MEDVAULT_SYNC_REGISTRATION_INVITATIONS` | `1` (needs `MEDVAULT_SYNC_REGISTRATION_SECRET`, for the first vault): `POST /v1/vaults` also accepts a single-use invitation minted by an enrolled device of a registered vault (`MedVault-Invitation`) | — (off) |
/// | `MEDVAULT_SYNC_INVITATION_LIFETIME_SECONDS`, `MEDVAULT_SYNC_MAX_INVITATIONS` | an invitation's lifetime (60 s … 30 days); unused invitations per vault | 7 days, 20 |
/// | `MEDVAULT_SYNC_TOKEN_LIFETIME_SECONDS` | a device token's lifetime (300 s … 10 years): past it, 401 `token_expired` until the device renews it with its token and a proof of the vault key | 30 days |
/// | `MEDVAULT_SYNC_ORIGIN` | the public origin devices reach this server at (`https://sync.example.org`): register and join proofs bound to another origin are refused (403), so a hostile server cannot relay this one's challenges; unset: a bound proof is checked against the origin it names | — |
/// | `MEDVAULT_SYNC_MAX_DEVICES` | active devices per vault (a join past it: 403 `quota_exceeded`) | 32 |
/// | `MEDVAULT_SYNC_MAX_VAULT_ENVELOPES`, `MEDVAULT_SYNC_MAX_VAULT_BYTES` | envelopes and bytes (ciphertext and record keys) per vault (a push past them: 403 `quota_exceeded`, nothing of the batch stored) | 50,000,000, 50 GiB |
/// | `MEDVAULT_SYNC_TRUSTED_PROXIES` | comma-separated IP addresses of reverse proxies whose `X-Forwarded-For` names the client (for the per-address rate limit); from any other peer the header is ignored | none |
/// | `LOG_LEVEL` | swift-log level (the PostgreSQL driver's logs stay at `debug` or above: its `trace` lines carry row bytes) | `info` |
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
    /// The bearer token `GET /metrics` requires; `nil`: `/metrics` is not served.
    public var metricsToken: String?
    /// Reverse proxies whose `X-Forwarded-For` header names the client.
    public var trustedProxies: Set<String> = []
    /// The deployment secret `POST /v1/vaults` accepts; with neither it nor
    /// ``invitationsEnabled``, anyone may register.
    public var registrationSecret: String?
    /// Whether `POST /v1/vaults` also accepts an invitation minted by an enrolled device
    /// (`POST /v1/vaults/{vaultId}/invitations`, served only then). Read from the
    /// environment only beside a ``registrationSecret`` (the first vault needs it).
    public var invitationsEnabled = false
    /// The public origin devices reach this server at, as `SyncDeviceProof.origin(of:)`
    /// writes it; register and join proofs bound to another origin are refused. `nil`:
    /// a bound proof is checked against the origin it names (no relay protection).
    public var origin: String?

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
        func tls(for host: String) throws -> PostgresClient.Configuration.TLS {
            try Self.tls(mode: environment["PGSSLMODE"], host: host,
                         allowPlaintext: environment["MEDVAULT_SYNC_DATABASE_ALLOW_PLAINTEXT"] == "1")
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
                             database: name.isEmpty ? "medvault_sync" : name, tls: try tls(for: host))
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
                                 database: name, tls: try tls(for: host))
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
        if let token = environment["MEDVAULT_SYNC_METRICS_TOKEN"] {
            guard token.utf8.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw SyncConfigurationError(variable: "MEDVAULT_SYNC_METRICS_TOKEN")
            }
            metricsToken = token
        }
        if let secret = environment["MEDVAULT_SYNC_REGISTRATION_SECRET"] {
            guard secret.utf8.count >= 16, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw SyncConfigurationError(variable: "MEDVAULT_SYNC_REGISTRATION_SECRET")
            }
            registrationSecret = secret
        }
        switch environment["MEDVAULT_SYNC_REGISTRATION_INVITATIONS"] {
        case nil, "0": invitationsEnabled = false
        // Without a secret nobody could register the first vault, whose device mints
        // the first invitation.
        case "1" where registrationSecret != nil: invitationsEnabled = true
        default: throw SyncConfigurationError(variable: "MEDVAULT_SYNC_REGISTRATION_INVITATIONS")
        }
        limits.invitationLifetimeSeconds = try integer("MEDVAULT_SYNC_INVITATION_LIFETIME_SECONDS",
                                                       limits.invitationLifetimeSeconds, range: 60...30 * 86_400)
        limits.maximumPendingInvitations = try integer("MEDVAULT_SYNC_MAX_INVITATIONS", limits.maximumPendingInvitations)
        limits.tokenLifetimeSeconds = try integer("MEDVAULT_SYNC_TOKEN_LIFETIME_SECONDS", limits.tokenLifetimeSeconds,
                                                  range: 300...10 * 365 * 86_400)
        if let text = environment["MEDVAULT_SYNC_ORIGIN"] {
            guard let url = URL(string: text), url.path.isEmpty || url.path == "/", url.query == nil,
                  url.user == nil, let origin = SyncDeviceProof.origin(of: url) else {
                throw SyncConfigurationError(variable: "MEDVAULT_SYNC_ORIGIN")
            }
            self.origin = origin
        }
        limits.maximumDevicesPerVault = try integer("MEDVAULT_SYNC_MAX_DEVICES", limits.maximumDevicesPerVault)
        limits.maximumEnvelopesPerVault = try integer("MEDVAULT_SYNC_MAX_VAULT_ENVELOPES", limits.maximumEnvelopesPerVault)
        limits.maximumStoredBytesPerVault = try integer("MEDVAULT_SYNC_MAX_VAULT_BYTES", limits.maximumStoredBytesPerVault)
        if let proxies = environment["MEDVAULT_SYNC_TRUSTED_PROXIES"] {
            let addresses = proxies.split(separator: ",").map { Self.canonicalAddress($0.trimmingCharacters(in: .whitespaces)) }
            let canonical = addresses.compactMap { $0 }
            guard canonical.count == addresses.count else {
                throw SyncConfigurationError(variable: "MEDVAULT_SYNC_TRUSTED_PROXIES")
            }
            trustedProxies = Set(canonical)
        }
        if let level = environment["LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level) else { throw SyncConfigurationError(variable: "LOG_LEVEL") }
            logLevel = parsed
        }
    }
}

extension SyncServerConfiguration {
    /// The TLS mode for a PostgreSQL `host`.
    ///
    /// A loopback host (`localhost`, `127.0.0.0/8`, `::1`) keeps libpq's default,
    /// `prefer`. Any other host defaults to `verify-full` — TLS with the certificate
    /// checked against the system's roots and the host name — and refuses the modes a
    /// network attacker defeats (`disable`, `prefer`, which a forged reply downgrades,
    /// and `require` without verification) unless `allowPlaintext`.
    ///
    /// - Throws: ``SyncConfigurationError`` for `PGSSLMODE`.
    static func tls(mode: String?, host: String, allowPlaintext: Bool) throws -> PostgresClient.Configuration.TLS {
        let loopback = isLoopback(host)
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch mode ?? (loopback ? "prefer" : "verify-full") {
        case "verify-full": return .require(.makeClientConfiguration())
        case "disable" where loopback || allowPlaintext: return .disable
        case "prefer" where loopback || allowPlaintext: return .prefer(unverified)
        case "require" where loopback || allowPlaintext: return .require(unverified)
        default: throw SyncConfigurationError(variable: "PGSSLMODE")
        }
    }

    /// `localhost`, or an IP address in 127.0.0.0/8 or `::1`; a host *name* is never
    /// loopback by its spelling (`127.db.example.org` is remote).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = canonicalAddress(bare) else { return false }
        return address == "::1" || address.hasPrefix("127.")
    }

    /// The address as the server prints a peer's (IPv4 dotted, IPv6 compressed lower
    /// case, an IPv4-mapped IPv6 address as IPv4), or `nil` when `text` is not one: a
    /// proxy listed as `0:0:0:0:0:0:0:1` matches a peer seen as `::1`.
    static func canonicalAddress(_ text: String) -> String? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0), let printed = address.ipAddress else {
            return nil
        }
        if printed.hasPrefix("::ffff:"), printed.contains(".") { return String(printed.dropFirst("::ffff:".count)) }
        return printed
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
