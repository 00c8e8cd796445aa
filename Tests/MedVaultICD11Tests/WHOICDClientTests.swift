import Foundation
import MedVaultCore
@testable import MedVaultICD11
import MedVaultTestSupport
import Testing

/// The WHO ICD-API client against `icd_api_server.py`: the documented shapes, and every
/// failure turned into its typed error. Each test starts its own server.
@Suite("WHO ICD-API client")
struct WHOICDClientTests {
    @Test("search: WHO-shaped hits become plain-text entities of the release; blocks are skipped; headers sent")
    func search() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            let result = try await client.search("depresión", language: "es", limit: 10)
            #expect(result.source == .server)
            #expect(result.entities.map(\.code) == ["6A70", "6A71", "6A72"])
            let first = try #require(result.entities.first)
            #expect(first.titles == ["es": "Trastorno depresivo de episodio único"])
            #expect(first.uri == "http://id.who.int/icd/entity/578635574")
            #expect(first.linearizationURI == "http://id.who.int/icd/release/11/2024-01/mms/578635574")
            #expect(first.releaseVersion == "2024-01")
            #expect(result.entities.allSatisfy { !($0.titles.values.joined().contains("<")) })
            let limited = try await client.search("disorder", language: "en", limit: 2)
            #expect(limited.entities.count == 2)
            let stats = try await server.stats()
            #expect(stats.token_requests == 1)
            #expect(stats.missing_headers == 0)
        }
    }

    @Test("code lookup: codeinfo then the entity; the snapshot is the frozen one")
    func lookupByCode() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            let entity = try await client.entity(code: "6A70", language: "es")
            #expect(try entity.snapshot(language: "es") == ICD11Snapshot(
                code: "6A70", title: "Trastorno depresivo de episodio único", titleEs: "Trastorno depresivo de episodio único",
                uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01"))
            let english = try await client.entity(code: "6B00", language: "en")
            #expect(english.titles == ["en": "Generalised anxiety disorder"])
            let byURI = try await client.entity(uri: "http://id.who.int/icd/entity/1712535455", language: "es")
            #expect(byURI.code == "6B00")
            let byLinearization = try await client.entity(uri: "https://id.who.int/icd/release/11/2024-01/mms/1712535455",
                                                          language: "es")
            #expect(byLinearization.titles["es"] == "Trastorno de ansiedad generalizada")
            #expect(await icdError { try await client.entity(code: "6A7Z", language: "es") }?.code == .notFound)
        }
    }

    @Test("bad arguments are refused before any request")
    func badArguments() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            #expect(await icdError { try await client.search("  ,; ", language: "es", limit: 10) }?.field == "text")
            #expect(await icdError { try await client.search("depresión", language: "ES\u{1B}", limit: 10) }?.field == "language")
            #expect(await icdError { try await client.search("depresión", language: "es", limit: 0) }?.field == "limit")
            #expect(await icdError { try await client.search("depresión", language: "es", limit: 101) }?.field == "limit")
            #expect(await icdError { try await client.entity(code: "../x", language: "es") }?.code == .invalidArgument)
            #expect(await icdError { try await client.entity(code: "6A70&XS5W", language: "es") }?.code == .invalidArgument)
            #expect(await icdError { try await client.entity(uri: "http://evil.example/icd/entity/1", language: "es") }?.code
                    == .invalidArgument)
            #expect(try await server.stats().api_requests == 0)
            #expect(try await server.stats().token_requests == 0)
        }
    }

    @Test("configuration: a bad release, a non-http URL or credentials over plain http to another host are refused")
    func configuration() throws {
        let local = URL(string: "http://127.0.0.1:1")!
        #expect(throws: MedVaultError.self) { try WHOICDClient(configuration: .localContainer(baseURL: local, release: "2024-13")) }
        #expect(throws: MedVaultError.self) {
            try WHOICDClient(configuration: .localContainer(baseURL: URL(string: "file:///tmp")!, release: "2024-01"))
        }
        #expect(throws: MedVaultError.self) {
            try WHOICDClient(configuration: .init(baseURL: URL(string: "http://icd.example.org")!, credentials: ICDTestServer.credentials,
                                                  release: "2024-01"))
        }
        #expect(throws: Never.self) {
            try WHOICDClient(configuration: .localContainer(baseURL: URL(string: "http://icd.example.org")!, release: "2025-01"))
        }
        #expect(throws: Never.self) { try WHOICDClient(configuration: .who(credentials: ICDTestServer.credentials, release: "2024-01")) }
    }

    @Test("a local ICD-API container needs no token: no token request, no Authorization")
    func localContainer() async throws {
        try await withICDTestServer(arguments: ["--open"]) { server in
            let client = try server.client(credentials: nil)
            let result = try await client.search("ansiedad", language: "es", limit: 5)
            #expect(result.entities.map(\.code) == ["6B00"])
            #expect(try await server.stats().token_requests == 0)
        }
    }

    // MARK: - Failures

    @Test("HTTP 401 on every call: the token is refreshed once and the call retried once, then unauthorized")
    func unauthorized() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            try await server.control("scenario=unauthorized")
            let error = await icdError { try await client.search("depresión", language: "es", limit: 5) }
            #expect(error?.code == .unauthorized)
            let stats = try await server.stats()
            #expect(stats.token_requests == 2)
            #expect(stats.api_requests == 2)
        }
    }

    @Test("the token endpoint refuses the credentials: unauthorized, and no secret in the error")
    func tokenRefused() async throws {
        try await withICDTestServer { server in
            let client = try server.client(credentials: ICD11Credentials(clientID: "someone-else", clientSecret: "not-the-secret-42"))
            let error = try #require(await icdError { try await client.search("depresión", language: "es", limit: 5) })
            #expect(error.code == .unauthorized)
            for text in [error.description, String(reflecting: error), error.reason] {
                #expect(!text.contains("not-the-secret-42"))
                #expect(!text.contains("someone-else"))
            }
            #expect(try await server.stats().api_requests == 0)
        }
    }

    @Test("HTTP 429 with Retry-After: rateLimited with the wait; calls during the wait do not reach the server")
    func rateLimited() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            try await server.control("scenario=rate_limited&retry_after=60")
            let error = await icdError { try await client.search("depresión", language: "es", limit: 5) }
            #expect(error?.code == .rateLimited)
            #expect(error?.retryAfter == .seconds(60))
            try await server.control("scenario=normal")
            let before = try await server.stats().api_requests
            let again = await icdError { try await client.entity(code: "6A70", language: "es") }
            #expect(again?.code == .rateLimited)
            #expect(again.flatMap(\.retryAfter).map { $0 > .zero && $0 <= .seconds(60) } == true)
            #expect(try await server.stats().api_requests == before)
        }
    }

    @Test("Retry-After as an HTTP date is read too; nonsense is ignored")
    func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let later = formatter.string(from: now.addingTimeInterval(120))
        #expect(HTTPExchangeFailure.retryAfter(later, now: now) == .seconds(120))
        #expect(HTTPExchangeFailure.retryAfter("30", now: now) == .seconds(30))
        #expect(HTTPExchangeFailure.retryAfter("999999999", now: now) == .seconds(86_400))
        #expect(HTTPExchangeFailure.retryAfter("soon", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter(nil, now: now) == nil)
    }

    @Test("HTTP 500: serverError")
    func serverError() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            try await server.control("scenario=server_error")
            #expect(await icdError { try await client.search("depresión", language: "es", limit: 5) }?.code == .serverError)
        }
    }

    @Test("an answer slower than the timeout: timeout")
    func slow() async throws {
        try await withICDTestServer { server in
            let client = try server.client(timeout: .seconds(1))
            _ = try await client.search("ansiedad", language: "es", limit: 5)  // the token, before the slowness
            // The answer comes after 20 s; a 1-s timeout gives up long before, even on a
            // loaded machine (the bound is generous: CI shares 2 cores with builds).
            try await server.control("scenario=slow&delay=20")
            let started = ContinuousClock.now
            #expect(await icdError { try await client.search("depresión", language: "es", limit: 5) }?.code == .timeout)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("truncated, malformed, hostile or oversized (9 MiB) answers: badResponse, never a crash")
    func badAnswers() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            for scenario in ["truncated", "malformed", "hostile", "huge"] {
                try await server.control("scenario=\(scenario)")
                #expect(await icdError { try await client.search("depresión", language: "es", limit: 5) }?.code == .badResponse,
                        "\(scenario)")
                #expect(await icdError { try await client.entity(code: "6A70", language: "es") }?.code == .badResponse,
                        "\(scenario)")
            }
        }
    }

    @Test("a redirect is not followed: badResponse, and the token never reaches the redirect's target")
    func redirect() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            try await server.control("scenario=redirect")
            #expect(await icdError { try await client.search("depresión", language: "es", limit: 5) }?.code == .badResponse)
            #expect(try await server.stats().redirected_authorizations == 0)
        }
    }

    @Test("no server listening: offline")
    func offline() async throws {
        let server = try await ICDTestServer()
        let client = try server.client()
        server.stop()
        #expect(await icdError { try await client.search("depresión", language: "es", limit: 5) }?.code == .offline)
        #expect(await icdError { try await client.entity(code: "6A70", language: "es") }?.code == .offline)
    }

    @Test("credentials print as redacted, also inside a configuration")
    func redactedCredentials() throws {
        let credentials = ICD11Credentials(clientID: "client-7f3a", clientSecret: "secret-9b2c")
        let configuration = WHOICDClient.Configuration.who(credentials: credentials, release: "2024-01")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: credentials), String(reflecting: credentials), "\(configuration)", dumped] {
            #expect(!text.contains("client-7f3a"))
            #expect(!text.contains("secret-9b2c"))
        }
    }
}
