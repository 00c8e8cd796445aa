import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore
import MedVaultICD11
import Testing

/// `Tests/Scripts/icd_api_server.py`, a WHO-shaped ICD-API on 127.0.0.1 and a free port
/// (a ``PythonTestServer``), started by the test that uses it and stopped when it ends
/// (``withICDTestServer(_:)`` stops it on failure too; `deinit` is the last resort).
package final class ICDTestServer: Sendable {
    package static let clientID = "medvault-test-client"
    package static let clientSecret = "medvault-test-secret"
    package static let credentials = ICD11Credentials(clientID: clientID, clientSecret: clientSecret)

    private let server: PythonTestServer
    package var port: Int { server.port }

    /// Starts the server and waits for the port it printed.
    package init(arguments: [String] = []) async throws {
        server = try await PythonTestServer(script: "icd_api_server.py", arguments: arguments, what: "ICD test server")
    }

    /// Stops the server (idempotent).
    package func stop() { server.stop() }

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    package var tokenURL: URL { URL(string: "http://127.0.0.1:\(port)/connect/token")! }

    /// A client of this server with the test credentials.
    package func configuration(credentials: ICD11Credentials? = ICDTestServer.credentials, release: String = "2024-01",
                               timeout: Duration = .seconds(10), margin: Duration = .seconds(60)) -> WHOICDClient.Configuration {
        WHOICDClient.Configuration(baseURL: baseURL, tokenURL: tokenURL, credentials: credentials, release: release,
                                   timeout: timeout, tokenRefreshMargin: margin)
    }

    package func client(credentials: ICD11Credentials? = ICDTestServer.credentials, timeout: Duration = .seconds(10),
                        margin: Duration = .seconds(60)) throws -> WHOICDClient {
        try WHOICDClient(configuration: configuration(credentials: credentials, timeout: timeout, margin: margin))
    }

    /// `POST /_control?…`: switches the scenario and settings.
    package func control(_ query: String) async throws {
        try await call("POST", "/_control?" + query)
    }

    /// `POST /_control/revoke`: every token issued so far is refused from now on.
    package func revokeTokens() async throws {
        try await call("POST", "/_control/revoke")
    }

    package struct Stats: Decodable {
        package let token_requests: Int
        package let api_requests: Int
        package let unauthorized_answers: Int
        package let redirected_authorizations: Int
        package let missing_headers: Int
    }

    package func stats() async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await call("GET", "/_control/stats"))
    }

    @discardableResult
    private func call(_ method: String, _ path: String) async throws -> Data {
        try await server.call(method, path)
    }
}

/// Runs `body` with a fresh test server, stopped afterwards whatever happens.
package func withICDTestServer<Value>(arguments: [String] = [], _ body: (ICDTestServer) async throws -> Value) async throws -> Value {
    let server = try await ICDTestServer(arguments: arguments)
    defer { server.stop() }
    return try await body(server)
}

/// The error `body` throws, as a `MedVaultError` (recorded as an issue when it is not one).
package func icdError(_ body: () async throws -> some Any) async -> MedVaultError? {
    do {
        _ = try await body()
        Issue.record("expected an error")
        return nil
    } catch let error as MedVaultError {
        return error
    } catch {
        Issue.record("not a MedVaultError: \(type(of: error))")
        return nil
    }
}
