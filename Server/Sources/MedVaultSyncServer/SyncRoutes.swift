import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MedVaultSyncWire
import NIOCore

/// The HTTP API of docs/sync-server.md: one handler per route.
///
/// Every handler reads its body with a size limit before decoding, authenticates the
/// bearer token (except health, challenges, register and join), checks the path's vault
/// against the token's, takes a rate-limit token and only then touches the database.
struct SyncRoutes: Sendable {
    /// Sorted keys: every answer is the same bytes for the same value (a 404 of another
    /// vault is byte for byte a 404 of no vault), as docs/sync-server.md shows them.
    /// The choices are `SyncWireJSON`'s, which the HTTP transport shares.
    static var encoder: JSONEncoder { SyncWireJSON.encoder() }

    let store: SyncStore
    let limits: SyncServerLimits
    let limiter: RateLimiter
    /// Peers whose `X-Forwarded-For` names the client (``clientAddress(_:_:)``).
    var trustedProxies: Set<String> = []
    /// The deployment secret `POST /v1/vaults` requires; `nil`: registration is open.
    var registrationSecret: String?
    /// This server's public origin; `nil`: a bound proof is checked against the origin it names.
    var origin: String?

    static let registrationSecretHeader = HTTPField.Name("MedVault-Registration-Secret")!

    func add(to router: Router<SyncRequestContext>) {
        router.get("/v1/health") { _, _ in try await self.health() }
        router.post("/v1/challenges") { request, context in try await self.challenge(request, context) }
        router.post("/v1/vaults") { request, context in try await self.register(request, context) }
        router.post("/v1/vaults/:vaultId/devices") { request, context in try await self.join(request, context) }
        router.delete("/v1/vaults/:vaultId/devices/:deviceId") { request, context in
            try await self.revoke(request, context)
        }
        router.post("/v1/vaults/:vaultId/envelopes") { request, context in try await self.push(request, context) }
        router.get("/v1/vaults/:vaultId/envelopes") { request, context in try await self.pull(request, context) }
        router.get("/v1/vaults/:vaultId/keyring") { request, context in try await self.getKeyring(request, context) }
        router.put("/v1/vaults/:vaultId/keyring") { request, context in try await self.putKeyring(request, context) }
    }

    // MARK: - Unauthenticated

    func health() async throws -> Response {
        do {
            try await store.ping()
        } catch {
            throw SyncServerError.unavailable
        }
        return try json(SyncHealth(status: "ok"))
    }

    func challenge(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try limitAddress(request, context)
        let body = try await decode(SyncChallengeRequest.self, request, limit: limits.maximumOtherBodyBytes)
        guard let challenge = try await store.makeChallenge(
            vaultID: body.vaultID, deviceID: body.deviceID, lifetimeSeconds: limits.challengeLifetimeSeconds,
            maximumPending: limits.maximumPendingChallenges)
        else {
            throw SyncServerError.rateLimited(retryAfterSeconds: limits.challengeLifetimeSeconds)
        }
        return try json(try SyncChallenge(challenge: challenge, expiresInSeconds: limits.challengeLifetimeSeconds),
                        status: .created)
    }

    func register(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try limitAddress(request, context)
        if let secret = registrationSecret {
            let presented = request.headers[Self.registrationSecretHeader] ?? ""
            guard DeviceToken.constantTimeEqual(presented, secret) else { throw SyncServerError.registrationClosed }
        }
        let body = try await decode(SyncRegisterRequest.self, request, limit: limits.maximumOtherBodyBytes)
        try await checkProof(.register, challenge: body.challenge, signature: body.signature, origin: body.origin,
                             vaultID: body.vaultID, deviceID: body.deviceID, key: body.verificationKey)
        let token = DeviceToken.make()
        try await store.registerVault(body, tokenHash: token.hash)
        context.logger.info("vault registered")
        return try json(SyncDeviceToken(deviceToken: token.token), status: .created)
    }

    func join(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        try limitAddress(request, context)
        let vaultID = try context.parameters.require("vaultId", as: UUID.self)
        let body = try await decode(SyncJoinRequest.self, request, limit: limits.maximumOtherBodyBytes)
        // An unknown vault fails like a bad signature: the caller learns nothing.
        let key = try await store.verificationKey(vaultID: vaultID)
        try await checkProof(.join, challenge: body.challenge, signature: body.signature, origin: body.origin,
                             vaultID: vaultID, deviceID: body.deviceID, key: key)
        let token = DeviceToken.make()
        try await store.addDevice(vaultID: vaultID, deviceID: body.deviceID, tokenHash: token.hash,
                                  maximumActive: limits.maximumDevicesPerVault)
        context.logger.info("device joined")
        return try json(SyncDeviceToken(deviceToken: token.token), status: .created)
    }

    // MARK: - Authenticated

    func push(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try await authenticate(request, context)
        let body = try await decode(SyncPushRequest.self, request, limit: limits.maximumPushBytes)
        guard body.envelopes.count <= limits.maximumEnvelopesPerPush else { throw SyncServerError.tooManyEnvelopes }
        let quota = VaultQuota(maximumEnvelopes: Int64(limits.maximumEnvelopesPerVault),
                               maximumBytes: Int64(limits.maximumStoredBytesPerVault))
        let sequences = try await store.push(body.envelopes, vaultID: device.vaultID, deviceID: device.deviceID,
                                             quota: quota)
        context.logger.debug("pushed", metadata: ["envelopes": "\(sequences.count)"])
        return try json(SyncPushResponse(sequences: sequences))
    }

    func pull(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try await authenticate(request, context)
        let query = request.uri.queryParameters
        let after: Int64
        if let text = query["after"] {
            guard let value = Int64(String(text)), value >= 0 else {
                throw SyncServerError.badRequest("after must be a sequence (an integer ≥ 0).")
            }
            after = value
        } else {
            after = 0
        }
        var limit = limits.maximumPullLimit
        if let text = query["limit"] {
            guard let value = Int(String(text)), value >= 1 else {
                throw SyncServerError.badRequest("limit must be an integer ≥ 1.")
            }
            limit = min(value, limits.maximumPullLimit)
        }
        let page = try await store.pull(vaultID: device.vaultID, after: after, limit: limit,
                                        maximumBytes: limits.maximumPullBytes)
        return try json(page)
    }

    func getKeyring(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try await authenticate(request, context)
        guard let keyring = try await store.keyring(vaultID: device.vaultID) else { throw SyncServerError.notFound }
        return try json(keyring)
    }

    func putKeyring(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try await authenticate(request, context)
        let body = try await decode(SyncKeyringUpdate.self, request, limit: limits.maximumOtherBodyBytes)
        guard try await store.updateKeyring(vaultID: device.vaultID, deviceID: device.deviceID, update: body) else {
            throw SyncServerError.staleGeneration
        }
        context.logger.info("keyring replaced", metadata: ["generation": "\(body.keyring.generation)"])
        return try json(body.keyring)
    }

    func revoke(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try await authenticate(request, context)
        let target = try context.parameters.require("deviceId", as: UUID.self)
        guard target != device.deviceID else { throw SyncServerError.selfRevocation }
        guard try await store.revoke(vaultID: device.vaultID, deviceID: target, by: device.deviceID) else {
            throw SyncServerError.notFound
        }
        context.logger.info("device revoked")
        return Response(status: .noContent)
    }

    // MARK: - Helpers

    /// The token's device, when its vault is the path's: otherwise 401 (no, unknown or
    /// revoked token) or 404 (another vault's token: the same answer as an unknown vault).
    func authenticate(_ request: Request, _ context: SyncRequestContext) async throws -> AuthenticatedDevice {
        guard let token = DeviceToken.bearer(in: request) else {
            try limitAddress(request, context)
            throw SyncServerError.missingToken
        }
        guard let hash = DeviceToken.hash(presented: token), let device = try await store.device(tokenHash: hash) else {
            try limitAddress(request, context)
            throw SyncServerError.badToken
        }
        if let wait = limiter.take("device:\(device.deviceID)") {
            throw SyncServerError.rateLimited(retryAfterSeconds: wait)
        }
        guard let vaultID = context.parameters.get("vaultId", as: UUID.self), vaultID == device.vaultID else {
            throw SyncServerError.notFound
        }
        return device
    }

    func limitAddress(_ request: Request, _ context: SyncRequestContext) throws {
        if let wait = limiter.take("address:\(clientAddress(request, context))") {
            throw SyncServerError.rateLimited(retryAfterSeconds: wait)
        }
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address: the peer's, or, when the peer is a trusted proxy, the last
    /// address of `X-Forwarded-For` that is not itself a trusted proxy. From any other
    /// peer the header is ignored (a client could name any address to dodge its limit).
    func clientAddress(_ request: Request, _ context: SyncRequestContext) -> String {
        let peer = SyncServerConfiguration.canonicalAddress(context.remoteAddress) ?? context.remoteAddress
        guard trustedProxies.contains(peer) else { return peer }
        let hops = request.headers[values: Self.forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { SyncServerConfiguration.canonicalAddress($0.trimmingCharacters(in: .whitespaces)) }
        for hop in hops.reversed() {
            // A hop that is not a bare address (a port appended, garbage): the proxy's.
            guard let hop else { return peer }
            if !trustedProxies.contains(hop) { return hop }
        }
        return peer
    }

    /// Spends the challenge, then verifies the Ed25519 signature; any failure is 403.
    func checkProof(_ purpose: SyncDeviceProof.Purpose, challenge: Data, signature: Data, origin named: String?,
                    vaultID: UUID, deviceID: UUID, key: Data?) async throws {
        let fresh = try await store.consumeChallenge(challenge, vaultID: vaultID, deviceID: deviceID)
        guard fresh, let key, let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key) else {
            throw SyncServerError.badProof
        }
        // A proof bound to another server's origin: relayed by that server.
        if let named, let origin, named != origin { throw SyncServerError.badProof }
        let message = SyncDeviceProof.message(purpose, challenge: challenge, vaultID: vaultID, deviceID: deviceID,
                                              boundTo: named)
        guard publicKey.isValidSignature(signature, for: message) else { throw SyncServerError.badProof }
    }

    /// Reads a JSON body of at most `limit` bytes.
    ///
    /// A `Content-Type` other than `application/json` (optionally `; charset=utf-8`) is
    /// 415; none at all is read as JSON (a client that omits it is not refused). A
    /// body in another encoding than UTF-8 — a byte-order mark, UTF-16's zero bytes — is
    /// 400 before JSON is parsed: Foundation's decoder would guess and accept it.
    func decode<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int) async throws -> T {
        if let contentType = request.headers[.contentType], !Self.isJSON(contentType) {
            throw SyncServerError.unsupportedMediaType
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw SyncServerError.tooLarge
        }
        var request = request
        let buffer = try await request.collectBody(upTo: limit)
        let bytes = buffer.readableBytesView
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.contains(0) {
            throw SyncServerError.badRequest("The body must be JSON in UTF-8, without a byte-order mark.")
        }
        return try SyncWireJSON.decoder().decode(T.self, from: Data(bytes))
    }

    /// `application/json`, with no parameter but `charset=utf-8`, in any case.
    static func isJSON(_ contentType: String) -> Bool {
        let parts = contentType.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first == "application/json" else { return false }
        return parts.dropFirst().allSatisfy { $0 == "charset=utf-8" || $0 == "charset=\"utf-8\"" }
    }

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try Self.encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
