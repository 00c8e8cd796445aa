import Foundation
import Hummingbird
import MedVaultCore
import MedVaultSync
@testable import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// What an internet-facing server must withstand (issue #33): malformed HTTP, scrapers
/// of `/metrics`, clients behind a proxy, a million clients' buckets.
@Suite("Sync server exposure", .serialized, .timeLimit(.minutes(3)))
struct SyncServerExposureTests {
    static let bodyRoutes = ["/v1/challenges", "/v1/vaults", "/v1/vaults/\(UUID())/devices",
                             "/v1/vaults/\(UUID())/envelopes"]

    /// Requests no HTTP client writes, for `path`.
    static func malformed(_ path: String, port: Int) -> [(String, String, Bool)] {
        let host = "Host: 127.0.0.1:\(port)\r\n"
        let json = #"{"vaultID":"\#(UUID())","deviceID":"\#(UUID())"}"#
        return [
            ("chunk size not hex", "POST \(path) HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", false),
            ("chunk cut short", "POST \(path) HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n40\r\n{\"a\":", true),
            ("body shorter than its length", "POST \(path) HTTP/1.1\r\n\(host)Content-Length: 500\r\n\r\n{\"vaultID\":", true),
            ("length not a number", "POST \(path) HTTP/1.1\r\n\(host)Content-Length: abc\r\n\r\n{}", false),
            ("two different lengths", "POST \(path) HTTP/1.1\r\n\(host)Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}x", false),
            ("length and chunked", "POST \(path) HTTP/1.1\r\n\(host)Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", false),
            ("header without a colon", "POST \(path) HTTP/1.1\r\n\(host)Garbage\r\nContent-Length: 2\r\n\r\n{}", false),
            ("not JSON's content type", "POST \(path) HTTP/1.1\r\n\(host)Content-Type: text/plain\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)", false),
            ("a byte-order mark", "POST \(path) HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: \(json.utf8.count + 3)\r\n\r\n\u{FEFF}\(json)", false),
        ]
    }

    @Test("Malformed HTTP on every route that reads a body: no answer of 500 or more, none counted; health stays 200")
    func malformedHTTPIsNeverA500() async throws {
        try await TestServer.with { server in
            let port = try #require(server.baseURL.port)
            for path in Self.bodyRoutes {
                for (name, request, closeAfter) in Self.malformed(path, port: port) {
                    let status = try await RawHTTP.status(port: port, request, closeAfter: closeAfter)
                    #expect(status.map { $0 < 500 } ?? true, "\(name) on \(path): \(String(describing: status))")
                    // Where the body is read (not after a 401 for the missing token), exactly:
                    guard !path.hasSuffix("/envelopes") else { continue }
                    let expected = ["chunk size not hex": 400, "not JSON's content type": 415, "a byte-order mark": 400]
                    if let code = expected[name] { #expect(status == code, "\(name) on \(path): \(String(describing: status))") }
                }
                #expect(try await server.client.send("GET", "/v1/health").status == 200)
            }
            let metrics = try await server.client.send("GET", "/metrics", token: TestServer.metricsToken).text
            #expect(metrics.contains("medvault_sync_requests_total"))
            #expect(!metrics.contains("status=\"5"), "a malformed request was counted as a server failure")
        }
    }

    @Test("A key repeated in one JSON object is 400 on every body route, before anything is stored, also hidden beside a deep array")
    func repeatedKeysAreRefused() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let envelope = try SyncWireJSON.encoder().encode(try vault.seal("one", record: "a"))
            let bodies: [(String, String, String?)] = [
                ("/v1/challenges", #"{"vaultId":"\#(UUID())","vaultId":"\#(vault.id)","deviceId":"\#(UUID())"}"#, nil),
                ("/v1/vaults/\(vault.id)/envelopes",
                 #"{"envelopes":[\#(String(decoding: envelope, as: UTF8.self))],"envelopes":[]}"#, device.token),
            ]
            // Deeper than the check reads (64 levels), which JSONDecoder would still decode (512).
            let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
            let hidden = #"{"vaultId":"\#(UUID())","vaultId":"\#(vault.id)","deviceId":"\#(UUID())","x":\#(deep)}"#
            for (path, body, token) in bodies + [("/v1/challenges", hidden, nil)] {
                let response = try await server.client.send("POST", path, token: token, body: Data(body.utf8))
                #expect(response.status == 400, "\(path): \(response.status) \(response.text)")
                #expect(!response.text.contains(vault.id.uuidString))
            }
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "0")
            #expect(try await server.sql("SELECT count(*) FROM challenges") == "0")
        }
    }

    @Test("/metrics needs the operator's token; without a configured token it is not served")
    func metricsNeedTheToken() async throws {
        try await TestServer.with { (server: TestServer) async throws in
            #expect(try await server.client.send("GET", "/metrics").status == 401)
            #expect(try await server.client.send("GET", "/metrics", token: "test-metrics-token-0123456780").status == 401)
            #expect(try await server.client.send("GET", "/metrics", token: TestServer.metricsToken).status == 200)
        }
        try await TestServer.with(metricsToken: nil) { (server: TestServer) async throws in
            #expect(try await server.client.send("GET", "/metrics").status == 404)
        }
    }

    @Test("Behind a trusted proxy each forwarded client has its own bucket; from an untrusted peer the header is ignored")
    func forwardedForOnlyFromTrustedProxies() async throws {
        var limits = SyncServerLimits()
        limits.requestsPerSecond = 0.001
        limits.burst = 2
        @Sendable func challenge(_ server: TestServer, from address: String) async throws -> Int {
            let body = try SyncWireJSON.encoder().encode(SyncChallengeRequest(vaultID: UUID(), deviceID: UUID()))
            return try await server.client.send("POST", "/v1/challenges", body: body,
                                                headers: ["X-Forwarded-For": address]).status
        }
        try await TestServer.with(limits: limits, trustedProxies: ["127.0.0.1"]) { (server: TestServer) async throws in
            for _ in 0..<2 { #expect(try await challenge(server, from: "203.0.113.7") == 201) }
            #expect(try await challenge(server, from: "203.0.113.7") == 429)
            // Another client behind the same proxy; a spoofed earlier hop does not help.
            #expect(try await challenge(server, from: "203.0.113.8") == 201)
            #expect(try await challenge(server, from: "198.51.100.1, 203.0.113.7") == 429)
        }
        try await TestServer.with(limits: limits) { (server: TestServer) async throws in
            for _ in 0..<2 { #expect(try await challenge(server, from: "203.0.113.\(Int.random(in: 1...200))") == 201) }
            // Untrusted peer: its header names any address; the peer's bucket is spent.
            #expect(try await challenge(server, from: "192.0.2.99") == 429)
        }
    }

    @Test("The rate limiter's sweeps stay amortized with 50,000 active clients (a sweep per doubling, not per request)")
    func limiterCostDoesNotGrowWithClients() {
        // Refilling so slowly that no bucket is full again during the test, however slow
        // the machine: a sweep frees none.
        let limiter = RateLimiter(requestsPerSecond: 0.000_001, burst: 10)
        for client in 0..<50_000 { _ = limiter.take("address:\(client)") }
        // Sweeps at 10,000 and then at each doubling: three, where every request past
        // 10,000 swept before (40,000 sweeps).
        #expect(limiter.sweepCount <= 3, "\(limiter.sweepCount) sweeps")
        #expect(limiter.sweepCount >= 1, "no sweep at all: the threshold was never passed")
    }

    @Test("With a deployment secret, registering without it or with a wrong one is 403 registration_closed and stores nothing; the HTTP transport with it registers")
    func registrationNeedsTheSecret() async throws {
        let secret = "deployment-secret-0123456789"
        try await TestServer.with(registrationSecret: secret) { server in
            for headers in [[:], ["MedVault-Registration-Secret": "deployment-secret-0123456780"]] {
                let refused = try await TestDevice.registerResponse(TestVault(), client: server.client, headers: headers)
                #expect(refused.status == 403, "\(headers): \(refused.text)")
                #expect(try refused.decode(SyncErrorBody.self).error == .registrationClosed)
            }
            #expect(try await server.sql("SELECT count(*) FROM vaults") == "0")

            var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL)
            let vault = TestVault()
            let without = try HTTPSyncTransport(configuration: configuration)
            let request = try await TestDevice.registerRequest(vault, client: server.client)
            let error = await #expect(throws: MedVaultError.self) { _ = try await without.register(request) }
            #expect(error?.code == .unauthorized && error?.reason.contains("deployment secret") == true,
                    "\(String(describing: error))")
            configuration.registrationSecret = secret
            let with = try HTTPSyncTransport(configuration: configuration)
            _ = try await with.register(try await TestDevice.registerRequest(vault, client: server.client))
            #expect(try await server.sql("SELECT count(*) FROM vaults") == "1")
            // Joining needs no secret: the vault's key proves the device.
            _ = try await TestDevice.join(vault, client: server.client)
        }
    }

    @Test("A vault at its quota of active devices: a join is 403 quota_exceeded and stores nothing; reads and pushes go on; a revocation frees the place")
    func deviceQuota() async throws {
        var limits = SyncServerLimits()
        limits.maximumDevicesPerVault = 2
        try await TestServer.with(limits: limits) { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let second = try await TestDevice.join(vault, client: server.client)
            let refused = try await TestDevice.joinResponse(vault, deviceID: UUID(), client: server.client)
            #expect(refused.status == 403, "\(refused.text)")
            #expect(try refused.decode(SyncErrorBody.self).error == .quotaExceeded)
            #expect(try await server.sql("SELECT count(*) FROM devices") == "2")
            _ = try await first.pushOK([try vault.seal("still works", record: "r")])
            #expect(try await second.pullOK().envelopes.count == 1)
            let revoke = try await first.client.send("DELETE", "/v1/vaults/\(vault.id)/devices/\(second.id)",
                                                     token: first.token)
            #expect(revoke.status == 204)
            _ = try await TestDevice.join(vault, client: server.client)
        }
    }

    @Test("A vault at its quota of envelopes or bytes: the push is 403 quota_exceeded and stores nothing of its batch; a retry of stored envelopes, pulls and other vaults go on")
    func envelopeAndByteQuotas() async throws {
        var limits = SyncServerLimits()
        limits.maximumEnvelopesPerVault = 3
        limits.maximumStoredBytesPerVault = 4_000
        try await TestServer.with(limits: limits) { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let first = try [vault.seal("one", record: "a"), vault.seal("two", record: "b")]
            #expect(try await device.pushOK(first) == [1, 2])
            let over = try await device.push([try vault.seal("three", record: "c"), try vault.seal("four", record: "d")])
            #expect(over.status == 403, "\(over.text)")
            #expect(try over.decode(SyncErrorBody.self).error == .quotaExceeded)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "2")
            #expect(try await device.pushOK(first) == [1, 2], "a retry of stored envelopes still answers")
            #expect(try await device.pullOK().envelopes.count == 2)

            // Bytes: one envelope of 5 KB is past 4,000 bytes, whatever the count.
            let other = TestVault()
            let second = try await TestDevice.register(other, client: server.client)
            let large = try await second.push([try other.seal(String(repeating: "x", count: 5_000), record: "z")])
            #expect(large.status == 403 && (try? large.decode(SyncErrorBody.self).error) == .quotaExceeded, "\(large.text)")
            #expect(try await second.pushOK([try other.seal("small", record: "s")]) == [1])
            #expect(try await server.sql("SELECT stored_bytes FROM vaults WHERE vault_id = '\(other.id)'")
                    == "\(try await server.sql("SELECT sum(octet_length(ciphertext) + octet_length(record_key)) FROM envelopes WHERE vault_id = '\(other.id)'"))")
        }
    }
}
