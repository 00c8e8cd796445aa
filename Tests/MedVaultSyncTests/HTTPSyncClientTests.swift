import Foundation
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The two HTTP clients under ``HTTPSyncTransport`` (libcurl on Linux, URLSession
/// elsewhere; both exist on Linux) send the same requests and make the same answers and
/// failures of the same exchanges; and the Linux default neither spins while it waits for
/// an answer nor holds Swift's cooperative threads (docs/sync.md, "The HTTP client
/// on Linux").
@Suite("HTTP sync clients", .timeLimit(.minutes(3)))
struct HTTPSyncClientTests {
    static let credentials = SyncCredentials(vaultID: UUID(), deviceID: UUID(),
                                             deviceToken: "tok-client-0123456789abcdefghijklmnopqrstuvwxyz")

    static func transport(_ server: SyncStubServer, _ backend: HTTPSyncBackend,
                          maximumResponseSize: Int = 1 << 20) throws -> HTTPSyncTransport {
        var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL, timeout: .seconds(30),
                                                            maximumResponseSize: maximumResponseSize)
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
        return try HTTPSyncTransport(configuration: configuration, backend: backend)
    }

    /// A push of `count` envelopes of 1 KiB: about 1.4 KiB of JSON each.
    static func push(_ count: Int) throws -> SyncPushRequest {
        SyncPushRequest(envelopes: try (0..<count).map { index in
            try SyncEnvelope(id: UUID(), recordKey: Data(repeating: UInt8(index % 250), count: 32),
                             ciphertext: Data((0..<1_024).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }))
        })
    }

    @Test("a 700-KiB push arrives whole, with its headers and nothing else; a DELETE carries no body and no type",
          arguments: HTTPSyncBackend.available)
    func largeBodies(backend: HTTPSyncBackend) async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server, backend)
            try await server.script([.init(status: 200, body: #"{"sequences":[1,2]}"#), .init(status: 204)])
            let push = try Self.push(500)
            #expect(try await transport.push(push, as: Self.credentials).sequences == [1, 2])
            try await transport.revoke(device: UUID(), as: Self.credentials)

            let received = try await server.received()
            try #require(received.count == 2)
            let body = try SyncWireJSON.encoder().encode(push)
            #expect(body.count > 700_000)
            #expect(received[0].bodyData == body)
            #expect(received[0].headers["content-length"] == "\(body.count)")
            #expect(received[0].headers["content-type"] == "application/json")
            #expect(received[0].headers["authorization"] == "Bearer \(Self.credentials.deviceToken)")
            #expect(received[0].headers["expect"] == nil, "no 100-continue round trip before the body")
            #expect(received[0].headers["cookie"] == nil)
            #expect(received[1].method == "DELETE" && received[1].bodyData.isEmpty)
            #expect(received[1].headers["content-type"] == nil)
        }
    }

    @Test("answers: a status with Retry-After is rateLimited with its wait; over the size limit is limitExceeded; a redirect is badResponse",
          arguments: HTTPSyncBackend.available)
    func answers(backend: HTTPSyncBackend) async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server, backend, maximumResponseSize: 64 << 10)
            try await server.script([
                .init(status: 429, headers: ["Retry-After": "7"], body: #"{"error":"rate_limited","message":"m"}"#),
                .init(status: 200, size: 64 << 10 + 1),
                .init(status: 200, size: 64 << 10 - 100),
                .init(status: 307, headers: ["Location": "/elsewhere"]),
            ])
            let limited = await #expect(throws: MedVaultError.self) {
                _ = try await transport.pull(after: 0, limit: 1, as: Self.credentials)
            }
            #expect(limited?.code == .rateLimited && limited?.retryAfter == .seconds(7))
            await expectMedVaultError(.limitExceeded) { _ = try await transport.keyring(as: Self.credentials) }
            // Under the limit: read whole (and not JSON, so badResponse, not limitExceeded).
            await expectMedVaultError(.badResponse) { _ = try await transport.keyring(as: Self.credentials) }
            await expectMedVaultError(.badResponse) { _ = try await transport.keyring(as: Self.credentials) }
            #expect(try await server.received().count == 4, "the redirect was followed")
        }
    }

    @Test("failures before an answer: a refused connection is offline, an answer slower than the timeout is timeout",
          arguments: HTTPSyncBackend.available)
    func failuresBeforeAnAnswer(backend: HTTPSyncBackend) async throws {
        let refusing = try RefusingPort()
        var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!,
                                                            timeout: .seconds(120))
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
        let refused = try HTTPSyncTransport(configuration: configuration, backend: backend)
        await expectMedVaultError(.offline) { _ = try await refused.keyring(as: Self.credentials) }
        withExtendedLifetime(refusing) {}

        try await withSyncStub { server in
            var slow = HTTPSyncTransport.Configuration(baseURL: server.baseURL, timeout: .milliseconds(300))
            slow.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
            let transport = try HTTPSyncTransport(configuration: slow, backend: backend)
            try await server.script([.init(status: 200, body: "{}", delay: 3)])
            await expectMedVaultError(.timeout) { _ = try await transport.keyring(as: Self.credentials) }
        }
    }

    @Test("the Linux client: 8 pushes of 140 KiB waiting 1 s for their answers neither spin (few context switches) nor hold the cooperative threads (a 10-ms ticker keeps ticking)")
    func waitingDoesNotSpin() async throws {
        try await withSyncStub { server in
            try await server.script([.init(status: 200, body: #"{"sequences":[1]}"#, delay: 1.0)])
            try await withTemporaryDirectory { dir in
                let probe = try ProbeChild(["http-wait", server.baseURL.absoluteString], outputURL: dir.file("wait.txt"))
                try await probe.waitForExit(timeoutSeconds: 120)
                try #require(probe.process.terminationStatus == 0, "the probe failed: \(probe.lines)")
                let report = Dictionary(uniqueKeysWithValues: probe.lines.compactMap { line -> (String, Int)? in
                    let parts = line.split(separator: " ")
                    guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                    return (String(parts[0]), value)
                })
                #expect(report["pushes"] == 8 && report["failed"] == 0, "\(probe.lines)")
                #expect(try await server.received().count == 8)
                // URLSession on Linux switched about 5,000 times per 40 ms of waiting here
                // (thousands of wake-ups a second); the libcurl client a few per request.
                let switches = try #require(report["switches"], "\(probe.lines)")
                #expect(switches < 3_000, "the process switched \(switches) times while 8 answers were held for 1 s: \(probe.lines)")
                // Waits on the cooperative threads (2 on this machine) would stop the ticker for the whole second.
                let gap = try #require(report["max-gap-ms"], "\(probe.lines)")
                #expect(gap < 500, "a 10-ms ticker went \(gap) ms without a tick while the pushes waited")
            }
        }
    }
}
