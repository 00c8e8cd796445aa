import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The HTTP sync transport against a scripted loopback stub: configuration checks, the
/// request it sends, the mapping of every failure, retries and their waits, Retry-After,
/// the answer size limit and redirect refusal. The end-to-end tests against the real
/// server are in `Server/Tests/MedVaultSyncServerTests/HTTPSyncTransportEndToEndTests.swift`.
@Suite("HTTP sync transport", .timeLimit(.minutes(3)))
struct HTTPSyncTransportTests {
    static let token = "tok-\(ClinicalFixtures.marker)-secret-0123456789abcdefghijklmnopqrstu"
    static let credentials = SyncCredentials(vaultID: UUID(), deviceID: UUID(), deviceToken: token)

    /// A transport of `server` whose waits are recorded, not slept; no jitter.
    static func transport(_ server: SyncStubServer, attempts: Int = 4, timeout: Duration = .seconds(10),
                          maximumResponseSize: Int = 1 << 20,
                          sleeps: RecordedSleeps = RecordedSleeps()) throws -> HTTPSyncTransport {
        var configuration = HTTPSyncTransport.Configuration(baseURL: server.baseURL, timeout: timeout,
                                                            maximumResponseSize: maximumResponseSize)
        configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: attempts, initialDelay: .milliseconds(100),
                                                        maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
        configuration.sleep = { sleeps.record($0) }
        return try HTTPSyncTransport(configuration: configuration)
    }

    static let pullPage = #"{"envelopes":[],"hasMore":false,"lastSequence":0}"#

    // MARK: - Configuration

    @Test("configuration: http only to this machine; no user, query or fragment; positive timeout; a proof origin that is an origin")
    func configuration() throws {
        func make(_ url: String, timeout: Duration = .seconds(5)) throws -> HTTPSyncTransport {
            try HTTPSyncTransport(configuration: .init(baseURL: URL(string: url)!, timeout: timeout))
        }
        for refused in ["http://sync.example.org", "http://127.0.0.1.example.org", "http://10.0.0.1:8080",
                        "ftp://127.0.0.1", "https://user:pw@sync.example.org", "https://sync.example.org/?a=1",
                        "https://sync.example.org/#x", "file:///tmp/x"] {
            #expect(throws: MedVaultError.self, "\(refused)") { try make(refused) }
            do { _ = try make(refused) } catch let error as MedVaultError {
                #expect(error.code == .invalidArgument)
                #expect(error.field == "baseURL")
                #expect(!error.description.contains("pw"))
            }
        }
        #expect(throws: MedVaultError.self) { try make("https://sync.example.org", timeout: .zero) }
        for accepted in ["https://sync.example.org", "https://sync.example.org:8443/prefix/", "http://127.0.0.1:8080",
                         "http://127.0.0.9", "http://localhost:1", "http://[::1]:8080"] {
            #expect(throws: Never.self, "\(accepted)") { try make(accepted) }
        }
        let transport = try make("https://sync.example.org/secret-prefix")
        #expect(transport.description == "HTTPSyncTransport(host: sync.example.org)")
        // Proofs are bound to the base URL's origin, or to the configured one, normalised.
        #expect(transport.proofOrigin == "https://sync.example.org")
        var tunnelled = HTTPSyncTransport.Configuration(baseURL: URL(string: "http://127.0.0.1:8443")!)
        tunnelled.proofOrigin = "HTTPS://Sync.Example.org:443/"
        #expect(try HTTPSyncTransport(configuration: tunnelled).proofOrigin == "https://sync.example.org")
        for bad in ["sync.example.org", "ftp://sync.example.org", "https://sync.example.org/v1"] {
            tunnelled.proofOrigin = bad
            #expect(throws: MedVaultError(.invalidArgument, field: "proofOrigin",
                                          reason: "the proof origin must be an http or https origin, such as https://sync.example.org")) {
                _ = try HTTPSyncTransport(configuration: tunnelled)
            }
        }
        #expect(!String(describing: Self.credentials).contains(Self.token))
    }

    // MARK: - Requests and answers

    @Test("requests: method, path, JSON body in the shared encoding, bearer token only on authenticated routes")
    func requestShape() async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server)
            let challengeBytes = Data(repeating: 7, count: 32)
            try await server.script([
                .init(status: 201, body: #"{"challenge":"\#(challengeBytes.base64EncodedString())","expiresInSeconds":120}"#),
                .init(status: 200, body: #"{"sequences":[41]}"#),
                .init(status: 200, body: Self.pullPage),
                .init(status: 204),
            ])
            let request = SyncChallengeRequest(vaultID: Self.credentials.vaultID, deviceID: Self.credentials.deviceID)
            let challenge = try await transport.challenge(request)
            #expect(challenge.challenge == challengeBytes)
            let envelope = try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 1, count: 32),
                                            ciphertext: Data(repeating: 2, count: 64))
            let push = SyncPushRequest(envelopes: [envelope])
            #expect(try await transport.push(push, as: Self.credentials).sequences == [41])
            let page = try await transport.pull(after: 40, limit: 7, as: Self.credentials)
            #expect(page.envelopes.isEmpty && page.lastSequence == 0 && !page.hasMore)
            let other = UUID()
            try await transport.revoke(device: other, as: Self.credentials)

            let received = try await server.received()
            try #require(received.count == 4)
            let vault = Self.credentials.vaultID.uuidString
            #expect(received[0].method == "POST" && received[0].path == "/v1/challenges")
            #expect(received[0].headers["authorization"] == nil)
            #expect(received[0].headers["content-type"] == "application/json")
            #expect(received[0].bodyData == (try SyncWireJSON.encoder().encode(request)))
            #expect(received[1].method == "POST" && received[1].path == "/v1/vaults/\(vault)/envelopes")
            #expect(received[1].headers["authorization"] == "Bearer \(Self.token)")
            #expect(received[1].bodyData == (try SyncWireJSON.encoder().encode(push)))
            #expect(received[2].method == "GET" && received[2].path == "/v1/vaults/\(vault)/envelopes?after=40&limit=7")
            #expect(received[2].bodyData.isEmpty)
            #expect(received[3].method == "DELETE" && received[3].path == "/v1/vaults/\(vault)/devices/\(other.uuidString)")
            #expect(received[3].headers["authorization"] == "Bearer \(Self.token)")
        }
    }

    @Test("bad arguments fail before any request: a negative cursor, a zero limit, a token with CR/LF")
    func badArguments() async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server)
            await expectMedVaultError(.validation, field: "after") {
                try await transport.pull(after: -1, limit: 10, as: Self.credentials)
            }
            await expectMedVaultError(.validation, field: "limit") {
                try await transport.pull(after: 0, limit: 0, as: Self.credentials)
            }
            let forged = SyncCredentials(vaultID: UUID(), deviceID: UUID(), deviceToken: "abc\r\nX-Evil: 1")
            let error = await expectMedVaultError(.validation, field: "deviceToken") {
                try await transport.keyring(as: forged)
            }
            #expect(error?.description.contains("abc") == false)
            #expect(try await server.received().isEmpty)
        }
    }

    // MARK: - Error mapping

    @Test("server errors map to fixed MedVaultErrors, never retried, never showing the token or the server's text",
          arguments: [
              (400, "bad_request", MedVaultError.Code.validation),
              (401, "unauthorized", .unauthorized),
              (403, "forbidden", .unauthorized),
              (404, "not_found", .notFound),
              (409, "vault_exists", .conflict),
              (409, "device_exists", .conflict),
              (409, "envelope_conflict", .conflict),
              (409, "stale_generation", .conflict),
              (409, "some_future_code", .conflict),
              (413, "payload_too_large", .limitExceeded),
              (418, "teapot", .badResponse),
          ])
    func errorMapping(status: Int, code: String, expected: MedVaultError.Code) async throws {
        try await withSyncStub { server in
            let sleeps = RecordedSleeps()
            let transport = try Self.transport(server, sleeps: sleeps)
            try await server.script([SyncStubServer.error(status, code, message: "echo \(Self.token)")])
            let error = await expectMedVaultError(expected) { try await transport.keyring(as: Self.credentials) }
            #expect(error?.description.contains(Self.token) == false)
            #expect(error?.description.contains("echo") == false)
            #expect(error?.retryAfter == nil)
            #expect(try await server.received().count == 1)
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test("409 codes keep their meaning in the reason: a stale keyring is told apart from an envelope conflict")
    func conflictReasons() async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server)
            var reasons: Set<String> = []
            for code in ["vault_exists", "device_exists", "envelope_conflict", "stale_generation"] {
                try await server.script([SyncStubServer.error(409, code)])
                let error = await expectMedVaultError(.conflict) { try await transport.keyring(as: Self.credentials) }
                reasons.insert(error?.reason ?? "")
            }
            #expect(reasons.count == 4)
        }
    }

    @Test("a 200 whose body is not the expected JSON is badResponse")
    func undecodableAnswer() async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server)
            try await server.script([.init(status: 200, body: "{\"generation\":\"x\"")])
            await expectMedVaultError(.badResponse) { try await transport.keyring(as: Self.credentials) }
        }
    }

    @Test("a call cancelled before it starts, as it starts or while the answer is awaited ends at once and never hangs",
          .timeLimit(.minutes(1)))
    func cancelledCallsEnd() async throws {
        try await withSyncStub { server in
            let transport = try Self.transport(server, attempts: 1)
            try await server.script([.init(status: 200, body: Self.pullPage, delay: 0.2)])
            for round in 0..<150 {
                let ended = OutcomeBox()
                let call = Task {
                    if round % 3 == 0 { withUnsafeCurrentTask { $0?.cancel() } }
                    do {
                        _ = try await transport.pull(after: 0, limit: 10, as: Self.credentials)
                        ended.set(nil)
                    } catch {
                        ended.set((error as? MedVaultError)?.code ?? .storage)
                    }
                }
                if round % 3 == 2 { try await Task.sleep(for: .milliseconds(10)) }
                if round % 3 != 0 { call.cancel() }
                // Without the fix, a call whose URL task was cancelled before it was resumed
                // waited forever (about one round in forty): fail instead of hanging.
                var waited = 0
                while !ended.isSet, waited < 500 {
                    try await Task.sleep(for: .milliseconds(10))
                    waited += 1
                }
                guard ended.isSet else {
                    Issue.record("round \(round): the cancelled call did not end within 5 s")
                    return
                }
                if let code = ended.code { #expect(code == .cancelled, "round \(round)") }
            }
        }
    }
}

/// How a background call ended: `nil` code for success. Set once, read from the test.
private final class OutcomeBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: every field is read and written under `lock`.
    private let lock = NSLock()
    private var done = false
    private var value: MedVaultError.Code?

    func set(_ code: MedVaultError.Code?) { lock.withLock { done = true; value = code } }
    var isSet: Bool { lock.withLock { done } }
    var code: MedVaultError.Code? { lock.withLock { value } }
}
