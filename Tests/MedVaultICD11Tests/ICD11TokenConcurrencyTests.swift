import Foundation
import MedVaultCore
import MedVaultICD11
import MedVaultTestSupport
import Testing

/// The token is shared: however many calls run at once, one token request.
@Suite("WHO ICD-API client: one token under concurrency")
struct ICD11TokenConcurrencyTests {
    /// Runs 20 searches at once and returns how many succeeded.
    static func twentySearches(_ client: WHOICDClient) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for n in 0..<20 {
                group.addTask { (try? await client.search(n % 2 == 0 ? "depresión" : "ansiedad", language: "es", limit: 5)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    @Test("20 concurrent searches with an expired token: exactly one token request")
    func expiredToken() async throws {
        try await withICDTestServer(arguments: ["--expires-in", "1"]) { server in
            let client = try server.client(margin: .zero)
            _ = try await client.search("depresión", language: "es", limit: 5)
            #expect(try await server.stats().token_requests == 1)
            try await Task.sleep(for: .milliseconds(1_300))  // the token has expired
            try await server.control("expires_in=3600")
            #expect(await Self.twentySearches(client) == 20)
            #expect(try await server.stats().token_requests == 2)
        }
    }

    @Test("20 concurrent searches with a fresh client: exactly one token request")
    func firstToken() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            #expect(await Self.twentySearches(client) == 20)
            #expect(try await server.stats().token_requests == 1)
        }
    }

    @Test("the server revokes the token (401): 20 concurrent searches refresh it once and all succeed")
    func revokedToken() async throws {
        try await withICDTestServer { server in
            let client = try server.client()
            _ = try await client.search("depresión", language: "es", limit: 5)
            try await server.revokeTokens()
            #expect(await Self.twentySearches(client) == 20)
            let stats = try await server.stats()
            #expect(stats.token_requests == 2)
            #expect(stats.unauthorized_answers >= 1)
        }
    }
}
