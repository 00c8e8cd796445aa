import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import MedVaultSyncServer
import NIOCore
import PostgresNIO

/// The sync server running in this process on a free port of 127.0.0.1, over its own
/// fresh database of the shared ``TestPostgres``, driven over real HTTP.
struct TestServer: Sendable {
    let baseURL: URL
    let database: String
    let postgres: TestPostgres

    /// Runs `body` against a new server (over `postgres`, by default the shared one, and
    /// `database`, by default a fresh one); stops the server afterwards, also on failure.
    static func with<T: Sendable>(limits: SyncServerLimits = SyncServerLimits(), postgres given: TestPostgres? = nil,
                                  metricsToken: String? = TestServer.metricsToken, trustedProxies: Set<String> = [],
                                  registrationSecret: String? = nil, invitations: Bool = false,
                                  origin: String? = nil, database givenDatabase: String? = nil,
                                  _ body: @Sendable (TestServer) async throws -> T) async throws -> T {
        let postgres: TestPostgres
        if let given { postgres = given } else { postgres = try await TestPostgres.get() }
        let database: String
        if let givenDatabase { database = givenDatabase } else { database = try await postgres.makeDatabase() }
        var configuration = SyncServerConfiguration(database: postgresConfiguration(postgres, database))
        configuration.port = 0
        configuration.limits = limits
        configuration.metricsToken = metricsToken
        configuration.trustedProxies = trustedProxies
        configuration.registrationSecret = registrationSecret
        configuration.invitationsEnabled = invitations
        configuration.origin = origin
        var logger = Logger(label: "test-sync-server")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = SyncServer.makeApplication(configuration: configuration, logger: logger) { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        // The stream ends when the server stops, so a server that fails before it listens
        // (its database, its port) fails the test with its error instead of hanging it.
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw TestPostgresError("the server stopped before it listened")
        }
        let server = TestServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, database: database, postgres: postgres)
        let result = try await body(server)
        task.cancel()
        _ = await task.result
        return result
    }

    static func postgresConfiguration(_ postgres: TestPostgres, _ database: String) -> PostgresClient.Configuration {
        PostgresClient.Configuration(host: "127.0.0.1", port: postgres.port, username: TestPostgres.superuser,
                                     password: nil, database: database, tls: .disable)
    }

    var client: HTTPTestClient { HTTPTestClient(baseURL: baseURL) }

    /// The token `GET /metrics` needs on the test servers (in process and spawned).
    static let metricsToken = "test-metrics-token-0123456789"

    /// `psql -At -c sql` on this server's database.
    func sql(_ sql: String) async throws -> String {
        try await postgres.psql(database, sql)
    }
}

/// A response as the tests see it.
struct HTTPTestResponse: Sendable {
    let status: Int
    let body: Data
    let headers: [String: String]

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal JSON client over URLSession (real HTTP on loopback).
struct HTTPTestClient: Sendable {
    let baseURL: URL

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    func send(_ method: String, _ path: String, token: String? = nil, body: Data? = nil,
              headers extraHeaders: [String: String] = [:]) async throws -> HTTPTestResponse {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await Self.session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestPostgresError("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key).lowercased()] = String(describing: value)
        }
        return HTTPTestResponse(status: http.statusCode, body: data, headers: headers)
    }

    func send(_ method: String, _ path: String, token: String? = nil, json: some Encodable) async throws -> HTTPTestResponse {
        try await send(method, path, token: token, body: try JSONEncoder().encode(json))
    }
}
