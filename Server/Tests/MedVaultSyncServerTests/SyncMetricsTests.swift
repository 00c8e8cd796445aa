import Foundation
import MedVaultSyncWire
import Testing

/// `GET /metrics`: request counters per route, method and status and latency
/// histograms, in the Prometheus text format, with no id, token or envelope byte.
@Suite("Sync server metrics", .timeLimit(.minutes(3)))
struct SyncMetricsTests {
    static let pushRoute = "route=\"/v1/vaults/{vaultId}/envelopes\",method=\"POST\""
    static let pullRoute = "route=\"/v1/vaults/{vaultId}/envelopes\",method=\"GET\""

    @Test("Counters move by route and status, histograms count and sum, and no label holds an id, token or envelope byte")
    func countersMove() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let before = try await Self.scrape(server)
            let envelopes = try (0..<3).map { try vault.seal("metrics \($0)", record: "m\($0)") }
            _ = try await device.pushOK(envelopes)
            _ = try await device.pushOK(envelopes)   // a retry: still a 200
            _ = try await device.pullOK()
            let stranger = try await server.client.send("GET", "/v1/vaults/\(vault.id)/envelopes?after=0",
                                                        token: String(repeating: "B", count: 43))
            #expect(stranger.status == 401)
            let probe = UUID()
            #expect(try await server.client.send("GET", "/v1/nothing/\(probe)").status == 404)

            let response = try await server.client.send("GET", "/metrics", token: TestServer.metricsToken)
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let after = Self.samples(response.text)
            func delta(_ name: String) -> Double { (after[name] ?? 0) - (before[name] ?? 0) }
            #expect(delta("medvault_sync_requests_total{\(Self.pushRoute),status=\"200\"}") == 2)
            #expect(delta("medvault_sync_requests_total{\(Self.pullRoute),status=\"200\"}") == 1)
            #expect(delta("medvault_sync_requests_total{\(Self.pullRoute),status=\"401\"}") == 1)
            #expect(delta("medvault_sync_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"}") == 1)
            #expect(delta("medvault_sync_request_duration_seconds_count{\(Self.pushRoute)}") == 2)
            #expect(delta("medvault_sync_request_duration_seconds_bucket{\(Self.pushRoute),le=\"+Inf\"}") == 2)
            #expect(delta("medvault_sync_request_duration_seconds_sum{\(Self.pushRoute)}") > 0)
            // Buckets are cumulative: never decreasing towards +Inf.
            let buckets = response.text.split(separator: "\n")
                .filter { $0.hasPrefix("medvault_sync_request_duration_seconds_bucket{\(Self.pushRoute)") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            #expect(buckets.count == 14)
            #expect(buckets == buckets.sorted())

            var secrets = [vault.id.uuidString, vault.id.uuidString.lowercased(), device.id.uuidString.lowercased(),
                           device.token, probe.uuidString, probe.uuidString.lowercased()]
            for envelope in envelopes {
                secrets += [envelope.id.uuidString.lowercased(), envelope.recordKey.base64EncodedString(),
                            envelope.ciphertext.base64EncodedString()]
            }
            for secret in secrets { #expect(!response.text.contains(secret)) }
        }
    }

    static func scrape(_ server: TestServer) async throws -> [String: Double] {
        let response = try await server.client.send("GET", "/metrics", token: TestServer.metricsToken)
        try #require(response.status == 200)
        return samples(response.text)
    }

    /// Every sample line, by its name and labels.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
