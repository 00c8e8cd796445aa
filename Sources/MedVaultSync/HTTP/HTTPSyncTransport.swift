import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore
import MedVaultSyncWire

/// The ``SyncTransport`` over HTTP: talks to `medvault-sync-server` (docs/sync.md).
///
/// Its HTTP client keeps no cookies, no cache, no credential store and follows
/// no redirect (a device token never goes to a host the configuration did not
/// name), answers read with a size limit. Bodies are the `MedVaultSyncWire` types in
/// the JSON of `SyncWireJSON`, as the server writes them.
///
/// Failures become `MedVaultError`s with fixed reasons (see ``SyncTransport``): never a
/// token, a record key, an envelope, a URL or the server's own message. Calls that fail
/// for a passing reason (offline, timeout, 5xx, 429) are retried with exponential backoff
/// and jitter (``HTTPSyncRetryPolicy``), honouring `Retry-After`; calls that would fail
/// the same way again (unauthorized, conflict, not found, validation, too large) never
/// are. Register and join are retried only where the server cannot have used the
/// challenge (it was not reached, or answered 429 or 503): a challenge is single use.
///
/// For example:
///
/// ```swift
/// let transport = try HTTPSyncTransport(configuration: .init(baseURL: URL(string: "https://sync.example.org")!))
/// let page = try await transport.pull(after: cursor, limit: 200, as: credentials)
/// ```
public final class HTTPSyncTransport: SyncTransport, CustomStringConvertible {
    /// What the transport was created with.
    public let configuration: Configuration

    private let client: any HTTPSyncClient

    /// Creates a transport. On Linux its requests go through libcurl directly, elsewhere
    /// through an ephemeral URLSession (docs/sync.md, "The HTTP client on Linux").
    ///
    /// - Throws: `invalidArgument` for a configuration that ``Configuration`` refuses
    ///   (plain http to another machine, a URL with a query or a password, a timeout that
    ///   is not positive, …).
    public convenience init(configuration: Configuration) throws {
        try self.init(configuration: configuration, backend: .platformDefault)
    }

    /// Creates a transport on `backend` (the tests run both where both exist).
    init(configuration: Configuration, backend: HTTPSyncBackend) throws {
        try configuration.validate()
        self.configuration = configuration
        switch backend {
        case .urlSession:
            client = URLSessionSyncClient(timeout: configuration.timeout)
        case .curl:
            #if canImport(FoundationNetworking)
            client = CurlSyncClient()
            #else
            throw MedVaultError(.invalidArgument, reason: "the libcurl HTTP client exists on Linux only")
            #endif
        }
    }

    /// The server's host, and nothing else of the configuration.
    public var description: String {
        "HTTPSyncTransport(host: \(configuration.baseURL.host ?? "?"))"
    }

    // MARK: - SyncTransport

    /// `POST /v1/challenges`.
    public func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge {
        try await call("POST", "v1/challenges", body: request, idempotent: true)
    }

    /// `POST /v1/vaults`; retried only where the challenge cannot have been used.
    public func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken {
        var headers: [String: String] = [:]
        if let secret = configuration.registrationSecret {
            // Visible ASCII only, like the token: no CR/LF forges another header.
            guard (1...512).contains(secret.utf8.count), secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw MedVaultError.validation("registrationSecret", "the registration secret is malformed")
            }
            headers["MedVault-Registration-Secret"] = secret
        }
        if let invitation = configuration.invitation {
            guard (1...512).contains(invitation.utf8.count),
                  invitation.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw MedVaultError.validation("invitation", "the invitation is malformed")
            }
            headers["MedVault-Invitation"] = invitation
        }
        return try await call("POST", "v1/vaults", body: request, headers: headers, idempotent: false,
                              spendsChallenge: true)
    }

    /// `POST /v1/vaults/{vault}/devices`; retried only where the challenge cannot have been used.
    public func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        try await call("POST", "v1/vaults/\(vaultID.uuidString)/devices", body: request, idempotent: false,
                       spendsChallenge: true)
    }

    /// `POST /v1/vaults/{vault}/envelopes`: idempotent by envelope id, so always retried.
    public func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        try await call("POST", "v1/vaults/\(credentials.vaultID.uuidString)/envelopes", body: request,
                       credentials: credentials, idempotent: true)
    }

    /// `GET /v1/vaults/{vault}/envelopes?after=&limit=`.
    ///
    /// - Throws: `validation` for a negative `after` or a `limit` below 1, before any
    ///   request; the errors of ``SyncTransport``.
    public func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        guard after >= 0 else { throw MedVaultError.validation("after", "the cursor must not be negative") }
        guard limit >= 1 else { throw MedVaultError.validation("limit", "the page size must be at least 1") }
        return try await call("GET", "v1/vaults/\(credentials.vaultID.uuidString)/envelopes",
                              query: "after=\(after)&limit=\(limit)", credentials: credentials, idempotent: true)
    }

    /// `GET /v1/vaults/{vault}/keyring`.
    public func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try await call("GET", "v1/vaults/\(credentials.vaultID.uuidString)/keyring", credentials: credentials,
                       idempotent: true)
    }

    /// `PUT /v1/vaults/{vault}/keyring`: compare-and-swap, so a retry after a lost answer
    /// fails `conflict` (the generation already moved) rather than writing twice.
    public func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try await call("PUT", "v1/vaults/\(credentials.vaultID.uuidString)/keyring", body: update,
                       credentials: credentials, idempotent: true)
    }

    /// `POST /v1/vaults/{vault}/devices/{device}/token/challenges`: a challenge asked for
    /// with the device's token (expired or not), which strangers cannot exhaust.
    public func tokenChallenge(as credentials: SyncCredentials) async throws -> SyncChallenge {
        try await call("POST", Self.tokenPath(credentials) + "/challenges", body: NoBody(), credentials: credentials,
                       idempotent: true)
    }

    /// `POST /v1/vaults/{vault}/devices/{device}/token`; retried only where the challenge
    /// cannot have been used.
    public func renewToken(_ request: SyncTokenRenewalRequest, as credentials: SyncCredentials) async throws
        -> SyncDeviceToken {
        try await call("POST", Self.tokenPath(credentials), body: request, credentials: credentials, idempotent: false,
                       spendsChallenge: true)
    }

    private static func tokenPath(_ credentials: SyncCredentials) -> String {
        "v1/vaults/\(credentials.vaultID.uuidString)/devices/\(credentials.deviceID.uuidString)/token"
    }

    /// `POST /v1/vaults/{vault}/invitations`; not retried after an ambiguous failure (a
    /// second invitation would be minted).
    public func invitation(as credentials: SyncCredentials) async throws -> SyncInvitation {
        try await call("POST", "v1/vaults/\(credentials.vaultID.uuidString)/invitations", body: NoBody(),
                       credentials: credentials, idempotent: false)
    }

    /// The configuration's ``Configuration/proofOrigin`` (normalised as
    /// `SyncDeviceProof.origin(of:)` writes it), or the base URL's origin.
    public var proofOrigin: String? {
        if let configured = configuration.proofOrigin {
            return URL(string: configured).flatMap { SyncDeviceProof.origin(of: $0) } ?? configured
        }
        return SyncDeviceProof.origin(of: configuration.baseURL)
    }

    /// `GET /v1/vaults/{vault}/devices`.
    public func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList {
        try await call("GET", "v1/vaults/\(credentials.vaultID.uuidString)/devices", credentials: credentials, idempotent: true)
    }

    /// `PUT /v1/vaults/{vault}/devices/{device}/name`: the same name twice is the same state.
    public func setName(_ update: SyncDeviceNameUpdate, as credentials: SyncCredentials) async throws {
        let _: Empty = try await call(
            "PUT", "v1/vaults/\(credentials.vaultID.uuidString)/devices/\(credentials.deviceID.uuidString)/name",
            body: update, credentials: credentials, idempotent: true)
    }

    /// `DELETE /v1/vaults/{vault}/devices/{device}`: revoking twice answers 204 again.
    public func revoke(device: UUID, as credentials: SyncCredentials) async throws {
        let _: Empty = try await call("DELETE", "v1/vaults/\(credentials.vaultID.uuidString)/devices/\(device.uuidString)",
                                      credentials: credentials, idempotent: true)
    }

    // MARK: - Exchange

    /// An answer with no body (204).
    struct Empty: Decodable {}

    struct NoBody: Encodable {}

    func call<Answer: Decodable>(_ method: String, _ path: String, query: String? = nil,
                                         credentials: SyncCredentials? = nil,
                                         idempotent: Bool) async throws -> Answer {
        try await call(method, path, query: query, body: NoBody?.none, credentials: credentials, idempotent: idempotent)
    }

    /// Sends one request, retrying as the policy allows, and decodes its answer.
    ///
    /// A request that `spendsChallenge` (register, join, renew) is not retried after a
    /// 503 either: the server spends the challenge before the database work that failed,
    /// so the same request would only be refused.
    func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, query: String? = nil, body: Body?,
        credentials: SyncCredentials? = nil, headers: [String: String] = [:], idempotent: Bool,
        spendsChallenge: Bool = false
    ) async throws -> Answer {
        var request = try makeRequest(method, path, query: query, body: body, credentials: credentials)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let policy = configuration.retryPolicy
        var attempt = 1
        while true {
            let failure: HTTPSyncFailure
            do {
                return try await attemptOnce(request, idempotent: idempotent)
            } catch {
                failure = HTTPSyncErrors.http.failure(error)
            }
            let spent = spendsChallenge && failure.error == HTTPSyncErrors.http.unavailable
            let retryable = !spent && (failure.retry == .safe || (failure.retry == .ambiguous && idempotent))
            guard retryable, attempt < policy.maximumAttempts, !Task.isCancelled else { throw failure.error }
            if let retryAfter = failure.error.retryAfter, retryAfter > policy.maximumRetryAfter {
                throw failure.error
            }
            let wait = policy.delay(after: attempt, retryAfter: failure.error.retryAfter, random: configuration.random())
            do {
                try await configuration.sleep(wait)
            } catch {
                throw HTTPSyncErrors.http.cancelled
            }
            attempt += 1
        }
    }

    private func attemptOnce<Answer: Decodable>(_ request: URLRequest, idempotent: Bool) async throws -> Answer {
        let (data, response) = try await client.data(for: request, limit: configuration.maximumResponseSize,
                                                     idempotent: idempotent)
        let status = response.statusCode
        guard (200..<300).contains(status) else {
            let code = try? SyncWireJSON.decoder().decode(SyncErrorBody.self, from: data).error
            let retryAfter = HTTPExchangeFailure.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
            throw HTTPSyncErrors.from(status: status, code: code, retryAfter: retryAfter)
        }
        if Answer.self == Empty.self, let empty = Empty() as? Answer { return empty }
        do {
            return try SyncWireJSON.decoder().decode(Answer.self, from: data)
        } catch {
            throw HTTPSyncFailure(error: HTTPSyncErrors.http.badResponse("the body is not the expected JSON"), retry: .never)
        }
    }

    private func makeRequest<Body: Encodable>(_ method: String, _ path: String, query: String?, body: Body?,
                                              credentials: SyncCredentials?) throws -> URLRequest {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/" + path + (query.map { "?" + $0 } ?? "")) else {
            throw MedVaultError(.invalidArgument, reason: "the sync request URL is malformed")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: HTTPSyncRetryPolicy.seconds(configuration.timeout))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let credentials {
            // The token goes into a header: visible ASCII only, so no CR/LF forges another.
            let token = credentials.deviceToken
            guard (1...512).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw MedVaultError.validation("deviceToken", "the device token is malformed")
            }
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        }
        if let body {
            do {
                // A push's envelopes are written without JSONEncoder (the same bytes).
                request.httpBody = try (body as? SyncPushRequest)?.wireJSON() ?? SyncWireJSON.encoder().encode(body)
            } catch {
                throw MedVaultError(.invalidArgument, reason: "the sync request could not be encoded")
            }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
