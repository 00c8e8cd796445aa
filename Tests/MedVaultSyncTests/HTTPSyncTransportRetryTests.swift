import Foundation
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Retries of the HTTP sync transport: which failures are retried, how long it waits,
/// Retry-After, offline and timeout, the answer size limit and redirects.
@Suite("HTTP sync transport retries", .timeLimit(.minutes(3)))
struct HTTPSyncTransportRetryTests {
    typealias T = HTTPSyncTransportTests

    static let keyring = #"{"generation":3,"keyring":"AQID"}"#

    @Test("503 then 500 then 200: retried with exponential waits, and the answer returned")
    func retriesServerErrors() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, sleeps: sleeps)
            try await server.script([SyncStubServer.error(503, "unavailable"), SyncStubServer.error(500, "internal_error"),
                                     .init(status: 200, body: Self.keyring)])
            let blob = try await transport.keyring(as: T.credentials)
            #expect(blob.generation == 3 && blob.keyring == Data([1, 2, 3]))
            #expect(try await server.received().count == 3)
            #expect(sleeps.all == [.milliseconds(100), .milliseconds(200)])
        }
    }

    @Test("5xx on every attempt: serverError after the policy's attempts, waits capped at the maximum")
    func givesUp() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, attempts: 6, sleeps: sleeps)
            try await server.script([SyncStubServer.error(502, "bad_gateway")])
            await expectMedVaultError(.serverError) { try await transport.pull(after: 0, limit: 5, as: T.credentials) }
            #expect(try await server.received().count == 6)
            #expect(sleeps.all == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
        }
    }

    @Test("register and join are not retried after a 500 or a 503 (the server may have spent the challenge), but are after 429")
    func registerRetriesOnlySafeFailures() async throws {
        try await withSyncStub { server in
            let transport = try T.transport(server)
            let join = try SyncJoinRequest(deviceID: UUID(), challenge: Data(repeating: 1, count: 32),
                                           signature: Data(repeating: 2, count: 64))
            try await server.script([SyncStubServer.error(500, "internal_error")])
            await expectMedVaultError(.serverError) { try await transport.join(vaultID: UUID(), join) }
            #expect(try await server.received().count == 1)

            // A 503 may come after the server spent the challenge (its database failed later).
            try await server.script([SyncStubServer.error(503, "unavailable")])
            await expectMedVaultError(.serverError) { try await transport.join(vaultID: UUID(), join) }
            #expect(try await server.received().count == 2)

            // The address limit answers before the body is read: nothing was spent.
            try await server.script([SyncStubServer.error(429, "rate_limited"),
                                     .init(status: 201, body: #"{"deviceToken":"abc"}"#)])
            #expect(try await transport.join(vaultID: UUID(), join).deviceToken == "abc")
            #expect(try await server.received().count == 4)
        }
    }

    @Test("429 with Retry-After: the transport waits at least that long, then succeeds")
    func honoursRetryAfter() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, sleeps: sleeps)
            try await server.script([SyncStubServer.error(429, "rate_limited", headers: ["Retry-After": "3"]),
                                     .init(status: 200, body: Self.keyring)])
            _ = try await transport.keyring(as: T.credentials)
            #expect(sleeps.all == [.seconds(3)])
        }
    }

    @Test("a Retry-After longer than the policy accepts fails at once with rateLimited and the server's wait")
    func longRetryAfterFails() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, sleeps: sleeps)
            try await server.script([SyncStubServer.error(429, "rate_limited", headers: ["Retry-After": "600"])])
            let error = await expectMedVaultError(.rateLimited) { try await transport.keyring(as: T.credentials) }
            #expect(error?.retryAfter == .seconds(600))
            #expect(sleeps.all.isEmpty)
            #expect(try await server.received().count == 1)
        }
    }

    @Test("429 on every attempt: rateLimited with the wait, after the policy's attempts")
    func rateLimitedExhausted() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, attempts: 2, sleeps: sleeps)
            try await server.script([SyncStubServer.error(429, "rate_limited", headers: ["Retry-After": "2"])])
            let error = await expectMedVaultError(.rateLimited) { try await transport.keyring(as: T.credentials) }
            #expect(error?.retryAfter == .seconds(2))
            #expect(sleeps.all == [.seconds(2)])
        }
    }

    @Test("nobody listens: offline, from the refused connection and not a timeout, after the policy's attempts")
    func offline() async throws {
        let refusing = try RefusingPort()
        let sleeps = RecordedSleeps()
        // A timeout far above any refused connection: a hung connect would end as
        // `timeout`, so `offline` proves the transport failed on the refusal itself. (No
        // wall-clock bound here: the full suite starves the 2-core machine; the server
        // package's end-to-end test times it.)
        var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!,
                                                            timeout: .seconds(120))
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10), jitter: 0)
        configuration.sleep = { sleeps.record($0) }
        let transport = try HTTPSyncTransport(configuration: configuration)
        await expectMedVaultError(.offline) { try await transport.keyring(as: T.credentials) }
        #expect(sleeps.all == [.milliseconds(10), .milliseconds(20)])
        withExtendedLifetime(refusing) {}
    }

    @Test("an answer slower than the timeout: timeout; an idempotent call tries again")
    func timeout() async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try T.transport(server, attempts: 2, timeout: .milliseconds(500), sleeps: sleeps)
            try await server.script([.init(status: 200, body: Self.keyring, delay: 3)])
            await expectMedVaultError(.timeout) { try await transport.keyring(as: T.credentials) }
            #expect(sleeps.all == [.milliseconds(100)], "one wait: the call was tried twice")
            // The first attempt reached the stub. The second usually does too, but on a
            // starved machine its 500 ms can run out before its request is even sent: the
            // recorded wait above is what proves the retry.
            var received = try await server.received().count
            for _ in 0..<20 where received < 2 {
                try await Task.sleep(for: .milliseconds(100))
                received = try await server.received().count
            }
            #expect((1...2).contains(received))
        }
    }

    @Test("an answer over the size limit: limitExceeded, not retried")
    func answerTooLarge() async throws {
        try await withSyncStub { server in
            let transport = try T.transport(server, maximumResponseSize: 4096)
            try await server.script([.init(status: 200, size: 200_000)])
            await expectMedVaultError(.limitExceeded) { try await transport.keyring(as: T.credentials) }
            #expect(try await server.received().count == 1)
            // Just under the limit is read.
            try await server.script([.init(status: 200, body: Self.keyring + String(repeating: " ", count: 4000))])
            #expect(try await transport.keyring(as: T.credentials).generation == 3)
        }
    }

    @Test("a redirect is not followed: badResponse, and the token never reaches the other location")
    func redirectRefused() async throws {
        try await withSyncStub { server in
            let transport = try T.transport(server)
            try await server.script([.init(status: 302, headers: ["Location": "/_stolen"])])
            let error = await expectMedVaultError(.badResponse) { try await transport.keyring(as: T.credentials) }
            #expect(error?.description.contains("_stolen") == false)
            #expect(try await server.stolenCount() == 0)
            #expect(try await server.received().count == 1)
        }
    }

    @Test("cancelling the task during a wait ends the call with cancelled")
    func cancelledDuringWait() async throws {
        try await withSyncStub { server in
            var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL)
            configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 5, initialDelay: .seconds(30), jitter: 0)
            let transport = try HTTPSyncTransport(configuration: configuration)
            try await server.script([SyncStubServer.error(503, "unavailable")])
            let task = Task { try await transport.keyring(as: T.credentials) }
            while try await server.received().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            await expectMedVaultError(.cancelled) { try await task.value }
            #expect(try await server.received().count == 1)
        }
    }

    @Test("a server that closes the connection without answering (killed mid-request): offline, retried when idempotent, not for register")
    func closedWithoutAnswer() async throws {
        // libcurl's "empty reply" (URLError.badServerResponse on Linux): the request may
        // have been processed, like a lost connection, and a device must retry later.
        let mapped = HTTPSyncErrors.http.failure(URLError(.badServerResponse))
        #expect(mapped.error.code == .offline)
        #expect(mapped.retry == .ambiguous)

        let server = try HangingUpServer()
        defer { server.stop() }
        let sleeps = RecordedSleeps()
        var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                                                            timeout: .seconds(30))
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10), jitter: 0)
        configuration.sleep = { sleeps.record($0) }
        let transport = try HTTPSyncTransport(configuration: configuration)
        await expectMedVaultError(.offline) { try await transport.keyring(as: T.credentials) }
        #expect(sleeps.all == [.milliseconds(10), .milliseconds(20)], "the idempotent read was tried three times")
        #expect(server.connections == 3)
        let join = try SyncJoinRequest(deviceID: UUID(), challenge: Data(count: 32), signature: Data(count: 64))
        await expectMedVaultError(.offline) { try await transport.join(vaultID: UUID(), join) }
        #expect(server.connections == 4, "a join is not sent twice: its challenge may be spent")
    }

    @Test("Retry-After: delay seconds or an HTTP date, at most a day; nonsense and negative values are ignored")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_445_412_470) // Wed, 21 Oct 2015 07:27:50 GMT
        #expect(HTTPExchangeFailure.retryAfter("7") == .seconds(7))
        #expect(HTTPExchangeFailure.retryAfter(" 7 ") == .seconds(7))
        #expect(HTTPExchangeFailure.retryAfter("9999999") == .seconds(86_400))
        #expect(HTTPExchangeFailure.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(10))
        #expect(HTTPExchangeFailure.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .zero)
        for nonsense in [nil, "", "-3", "soon", "1.5"] {
            #expect(HTTPExchangeFailure.retryAfter(nonsense) == nil)
        }
    }

    @Test("backoff: exponential, capped, jitter only shortens a wait and never below Retry-After")
    func backoffArithmetic() {
        let policy = HTTPSyncRetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(500),
                                         maximumDelay: .seconds(8), multiplier: 2, jitter: 0.5)
        #expect(policy.delay(after: 1, random: 0) == .milliseconds(500))
        #expect(policy.delay(after: 3, random: 0) == .seconds(2))
        #expect(policy.delay(after: 9, random: 0) == .seconds(8))
        #expect(policy.delay(after: 3, random: 0.999_999) == .seconds(1))
        #expect(policy.delay(after: 3, random: 0.5) == .milliseconds(1500))
        #expect(policy.delay(after: 1, retryAfter: .seconds(5), random: 0.9) == .seconds(5))
        #expect(HTTPSyncRetryPolicy(maximumAttempts: 0, multiplier: .nan, jitter: 7).maximumAttempts == 1)
        #expect(HTTPSyncRetryPolicy(jitter: 7).jitter == 1)
        #expect(HTTPSyncRetryPolicy.never.maximumAttempts == 1)
        // Absurd settings do not overflow: the wait is capped, not a crash.
        let absurd = HTTPSyncRetryPolicy(initialDelay: .seconds(Int64.max / 4), maximumDelay: .seconds(Int64.max / 2),
                                         multiplier: 1e300, jitter: 0)
        #expect(absurd.delay(after: 1_000, random: 0) > .seconds(86_400 * 365))
    }
}

/// A loopback server that reads each request and closes the connection without a byte of
/// answer: what a client sees of a server killed while it handles the request.
final class HangingUpServer: Sendable {
    private let acceptor: LoopbackAcceptor

    var port: Int { acceptor.port }
    var connections: Int { acceptor.connections }

    init() throws {
        acceptor = try LoopbackAcceptor { connection in
            // Read the request head (and what body came with it), then hang up.
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            usleep(20_000)
            close(connection)
        }
    }

    func stop() { acceptor.stop() }
}
