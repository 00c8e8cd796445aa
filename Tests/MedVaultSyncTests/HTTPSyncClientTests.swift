import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
                // Lower-case, as HTTP/2 sends every name.
                .init(status: 429, headers: ["retry-after": "7"], body: #"{"error":"rate_limited","message":"m"}"#),
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

    @Test("the Linux client: 8 pushes of 140 KiB waiting 1 s for their answers neither spin (few context switches) nor hold the cooperative threads (a 10-ms ticker keeps ticking)",
          .enabled(if: HTTPSyncBackend.platformDefault == .curl))
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
                // With URLSession as the default, the probe switched 167,692 times here (1.7 s
                // of CPU); with the libcurl client, 579.
                let switches = try #require(report["switches"], "\(probe.lines)")
                #expect(switches < 3_000, "the process switched \(switches) times while 8 answers were held for 1 s: \(probe.lines)")
                // Waits on the cooperative threads (2 on this machine) would stop the ticker for the whole second.
                let gap = try #require(report["max-gap-ms"], "\(probe.lines)")
                #expect(gap < 500, "a 10-ms ticker went \(gap) ms without a tick while the pushes waited")
            }
        }
    }

    // MARK: - The libcurl client's own rules

    static var curlOnly: Bool { HTTPSyncBackend.available.contains(.curl) }

    @Test("On Linux the default client is libcurl: this machine's libcurl is 7.84 or later and thread-safe (else every libcurl test here would be skipped)")
    func linuxDefault() {
        #if canImport(FoundationNetworking)
        #expect(HTTPSyncBackend.platformDefault == .curl)
        #else
        #expect(HTTPSyncBackend.platformDefault == .urlSession)
        #endif
    }

    @Test("a join (which spends its challenge) never goes on a kept connection: a server that hangs up on a kept connection's next request receives it once",
          arguments: HTTPSyncBackend.available)
    func nonIdempotentOnAFreshConnection(backend: HTTPSyncBackend) async throws {
        let server = try KeepAliveOnceServer()
        defer { server.stop() }
        var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                                                            timeout: .seconds(60))
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
        let transport = try HTTPSyncTransport(configuration: configuration, backend: backend)
        // Answered `{}` (not a keyring): the connection stays open for the next call.
        await expectMedVaultError(.badResponse) { _ = try await transport.keyring(as: Self.credentials) }
        let join = try SyncJoinRequest(deviceID: UUID(), challenge: Data(count: 32), signature: Data(count: 64))
        await expectMedVaultError(.badResponse) { _ = try await transport.join(vaultID: UUID(), join) }
        let posts = server.requestLines.filter { $0.hasPrefix("POST ") }.count
        #expect(posts == 1, "the join reached the server \(posts) times: \(server.requestLines)")
        guard backend == .curl else { return }
        // libcurl: a read on the kept connection, which the server drops after reading
        // it, is sent again by libcurl itself, as it may be.
        await expectMedVaultError(.badResponse) { _ = try await transport.keyring(as: Self.credentials) }
        #expect(server.requestLines.filter { $0.hasPrefix("GET ") }.count == 3, "\(server.requestLines)")
    }

    @Test("TLS: a certificate no system trusts is offline and never retried; a handshake the server breaks off is offline and retried like a refused connection",
          .enabled(if: curlOnly))
    func tlsFailures() async throws {
        let sleeps = RecordedSleeps()
        func transport(_ port: Int) throws -> HTTPSyncTransport {
            var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "https://127.0.0.1:\(port)")!,
                                                                timeout: .seconds(60))
            configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10), jitter: 0)
            configuration.sleep = { sleeps.record($0) }
            return try HTTPSyncTransport(configuration: configuration, backend: .curl)
        }
        let untrusted = try await PythonTestServer(script: "tls_stub_server.py", what: "TLS stub server")
        defer { untrusted.stop() }
        await expectMedVaultError(.offline) { _ = try await transport(untrusted.port).keyring(as: Self.credentials) }
        #expect(sleeps.all.isEmpty, "an untrusted certificate fails the same way every time: not retried")

        let hangingUp = try HangingUpServer()
        defer { hangingUp.stop() }
        await expectMedVaultError(.offline) { _ = try await transport(hangingUp.port).keyring(as: Self.credentials) }
        #expect(sleeps.all == [.milliseconds(10), .milliseconds(20)])
        #expect(hangingUp.connections == 3)
    }

    @Test("header lines: a header with CR, LF or NUL, or a name that is empty or holds a colon, is refused; an empty or blank value is sent empty; no type means none",
          .enabled(if: curlOnly))
    func headerLines() throws {
        #if canImport(FoundationNetworking)
        for (name, value) in [("X-Test", "a\r\nInjected: yes"), ("X-Test", "a\nb"), ("X-Test", "a\rb"), ("X-Test", "a\u{0}b"),
                              ("X:Test", "a"), ("", "a"), ("X\nTest", "a")] {
            #expect(throws: MedVaultError(.invalidArgument, reason: "a sync request header is malformed"),
                    "\(name.debugDescription): \(value.debugDescription)") {
                _ = try CurlSyncClient.headerLines([name: value])
            }
        }
        #expect(try CurlSyncClient.headerLines(["B": "", "A": "1", "C": " \t"]) == ["A: 1", "B;", "C;", "Content-Type:"])
        #expect(try CurlSyncClient.headerLines(["content-type": "application/json"]) == ["content-type: application/json"])
        #endif
    }

    @Test("an answer that announces no length is cut as it arrives: a chunked body past the limit, and headers past 64 KiB, are limitExceeded",
          .enabled(if: curlOnly))
    func unannouncedAnswersOverTheLimit() async throws {
        #if canImport(FoundationNetworking)
        let chunk = String(repeating: "x", count: 600)
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + String(repeating: "258\r\n\(chunk)\r\n", count: 4) + "0\r\n\r\n"  // 2,400 bytes, 0x258 = 600
        let header = "X-Filler: " + String(repeating: "y", count: 1_000) + "\r\n"
        let heavy = "HTTP/1.1 200 OK\r\n" + String(repeating: header, count: 70) + "Content-Length: 2\r\n\r\n{}"
        for answer in [chunked, heavy] {
            let server = try LoopbackAcceptor.answering(answer)
            defer { server.stop() }
            var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                                                                timeout: .seconds(60), maximumResponseSize: 2_048)
            configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 1)
            let transport = try HTTPSyncTransport(configuration: configuration, backend: .curl)
            await expectMedVaultError(.limitExceeded) { _ = try await transport.keyring(as: Self.credentials) }
        }
        #endif
    }

    @Test("answer headers: CRLF or LF lines, any case, repeated fields joined, folded lines continued, the last answer's only, no trailer, no line cut at a lone CR or U+2028",
          .enabled(if: curlOnly))
    func answerHeaders() async throws {
        #if canImport(FoundationNetworking)
        // Through a real exchange: a 100 Continue before the answer, LF-only lines, a
        // chunked body with a trailer.
        let answer = "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
            + "HTTP/1.1 429 Too Many Requests\nretry-after: 7\nX-Twice: a\nx-twice: b\nX-Folded: one\n\ttwo\n"
            + "X-Separator: a\u{2028}Retry-After: 99\nX-Return: a\rInjected: yes\n"
            + "Transfer-Encoding: chunked\nConnection: close\n\n"
            + "2\r\n{}\r\n0\r\nX-Trailer: late\r\n\r\n"
        let server = try LoopbackAcceptor.answering(answer)
        defer { server.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!)
        request.timeoutInterval = 60
        let (body, response) = try await CurlSyncClient().data(for: request, limit: 1_024, idempotent: true)
        #expect(response.statusCode == 429 && body == Data("{}".utf8))
        #expect(response.value(forHTTPHeaderField: "Retry-After") == "7")
        #expect(response.value(forHTTPHeaderField: "X-Twice") == "a, b")
        #expect(response.value(forHTTPHeaderField: "X-Folded") == "one two")
        #expect(response.value(forHTTPHeaderField: "X-Interim") == nil)
        #expect(response.value(forHTTPHeaderField: "X-Trailer") == nil)
        #expect(response.value(forHTTPHeaderField: "Injected") == nil)
        #expect(response.value(forHTTPHeaderField: "X-Separator") == "a\u{2028}Retry-After: 99")
        #endif
    }
}

/// Answers the first request on each connection (200 `{}`, kept alive) and hangs up on
/// the next one after reading it: a server that died between two requests on one kept
/// connection. Records the request line of every request it read.
final class KeepAliveOnceServer: Sendable {
    private let acceptor: LoopbackAcceptor
    private let recorded: Recorded<String>

    var port: Int { acceptor.port }
    var requestLines: [String] { recorded.all }

    init() throws {
        let recorded = Recorded<String>()
        self.recorded = recorded
        acceptor = try LoopbackAcceptor { connection in
            var pending: [UInt8] = []
            var answered = false
            while let line = Self.readRequest(connection, &pending) {
                recorded.record(line)
                guard !answered else { break }
                answered = true
                let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)
                _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            close(connection)
        }
    }

    func stop() { acceptor.stop() }

    /// The request line of the next whole request (head and `Content-Length` body) read
    /// from `connection`; `nil` at the end of the stream.
    private static func readRequest(_ connection: Int32, _ pending: inout [UInt8]) -> String? {
        let separator = Array("\r\n\r\n".utf8)
        func receive() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            pending += chunk[..<count]
            return true
        }
        var headEnd: Int?
        while true {
            if let range = pending.firstRange(of: separator) {
                headEnd = range.upperBound
                break
            }
            guard receive() else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: pending[..<headEnd], as: UTF8.self)
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while pending.count < headEnd + length {
            guard receive() else { return nil }
        }
        pending.removeFirst(headEnd + length)
        return head.split(separator: "\r\n").first.map(String.init) ?? ""
    }
}
