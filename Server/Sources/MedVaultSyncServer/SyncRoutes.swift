import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MedVaultSyncWire
import NIOCore

/// The HTTP API of docs/sync-server.md: one handler per route, in two route groups.
///
/// The anonymous routes (health aside: challenges, register, join) run behind
/// ``AddressRateLimitMiddleware``; the device routes behind
/// ``DeviceAuthenticationMiddleware``, which authenticates the bearer token, checks the
/// path's vault against the token's and takes the device's rate-limit token. Every
/// handler then reads its body with a size limit before decoding, and only then touches
/// the database.
struct SyncRoutes: Sendable {
    /// Sorted keys: every answer is the same bytes for the same value (a 404 of another
    /// vault is byte for byte a 404 of no vault), as docs/sync-server.md shows them.
    /// The choices are `SyncWireJSON`'s, which the HTTP transport shares.
    static var encoder: JSONEncoder { SyncWireJSON.encoder() }

    let store: SyncStore
    let limits: SyncServerLimits
    let limiter: RateLimiter
    /// Peers whose `X-Forwarded-For` names the client (``AddressRateLimitMiddleware``).
    var trustedProxies: Set<String> = []
    /// The deployment secret `POST /v1/vaults` accepts; with neither it nor
    /// ``invitationsEnabled``, registration is open.
    var registrationSecret: String?
    /// Whether registration accepts invitations (and devices may mint them).
    var invitationsEnabled = false
    /// This server's public origin; `nil`: a bound proof is checked against the origin it names.
    var origin: String?

    static let registrationSecretHeader = HTTPField.Name("MedVault-Registration-Secret")!
    static let invitationHeader = HTTPField.Name("MedVault-Invitation")!

    func add(to router: Router<SyncRequestContext>) {
        router.get("/v1/health") { _, _ in try await self.health() }

        let addressLimit = AddressRateLimitMiddleware(limiter: limiter, trustedProxies: trustedProxies)
        let anonymous = router.group().add(middleware: addressLimit)
        anonymous.post("/v1/challenges") { request, context in try await self.challenge(request, context) }
        anonymous.post("/v1/vaults") { request, context in try await self.register(request, context) }
        anonymous.post("/v1/vaults/:vaultId/devices") { request, context in try await self.join(request, context) }
        anonymous.get("/v1/vaults/:vaultId/recovery") { request, context in try await self.recovery(request, context) }
        anonymous.post("/v1/pairings") { request, context in try await self.createPairing(request, context) }
        anonymous.get("/v1/pairings/:pairingId") { request, context in try await self.pairing(request, context) }

        let authentication = DeviceAuthenticationMiddleware(store: store, limiter: limiter, addressLimit: addressLimit,
                                                            tokenLifetimeSeconds: limits.tokenLifetimeSeconds)
        let device = router.group("/v1/vaults/:vaultId").add(middleware: authentication)
        device.delete("devices/:deviceId") { request, context in try await self.revoke(request, context) }
        device.get("devices") { request, context in try await self.listDevices(request, context) }
        device.put("devices/:deviceId/name") { request, context in try await self.nameDevice(request, context) }
        device.put("devices/:deviceId/certificate") { request, context in try await self.certify(request, context) }
        device.post("epochs") { request, context in try await self.startEpoch(request, context) }
        device.get("epochs/:epoch/package") { request, context in try await self.epochPackage(request, context) }
        device.put("pairings/:pairingId/approval") { request, context in try await self.answerPairing(request, context) }
        device.post("envelopes") { request, context in try await self.push(request, context) }
        device.get("envelopes") { request, context in try await self.pull(request, context) }
        device.get("keyring") { request, context in try await self.getKeyring(request, context) }
        device.put("keyring") { request, context in try await self.putKeyring(request, context) }
        if invitationsEnabled {
            device.post("invitations") { request, context in try await self.invite(request, context) }
        }

        var renewal = authentication
        renewal.acceptsExpiredToken = true
        router.group("/v1/vaults/:vaultId/devices/:deviceId/token").add(middleware: renewal)
            .post("challenges") { request, context in try await self.renewalChallenge(request, context) }
            .post { request, context in try await self.renewToken(request, context) }
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
        let body = try await decode(SyncChallengeRequest.self, request, limit: limits.maximumOtherBodyBytes)
        return try await newChallenge(vaultID: body.vaultID, deviceID: body.deviceID, forRenewal: false)
    }

    /// A new challenge for (vault, device), 201; 429 when the device has the maximum pending.
    func newChallenge(vaultID: UUID, deviceID: UUID, forRenewal: Bool) async throws -> Response {
        guard let challenge = try await store.makeChallenge(
            vaultID: vaultID, deviceID: deviceID, lifetimeSeconds: limits.challengeLifetimeSeconds,
            maximumPending: limits.maximumPendingChallenges, forRenewal: forRenewal)
        else {
            throw SyncServerError.rateLimited(retryAfterSeconds: limits.challengeLifetimeSeconds)
        }
        return try json(try SyncChallenge(challenge: challenge, expiresInSeconds: limits.challengeLifetimeSeconds),
                        status: .created)
    }

    func register(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let invitationHash = try admission(request)
        let body = try await decode(SyncRegisterRequest.self, request, limit: limits.maximumOtherBodyBytes)
        try await checkProof(.register, challenge: body.challenge, signature: body.signature, origin: body.origin,
                             vaultID: body.vaultID, deviceID: body.deviceID, key: body.verificationKey)
        if let certificate = body.certificate,
           !SyncStore.verify(certificate.signature, certificate.message(vaultID: body.vaultID), body.verificationKey) {
            throw SyncServerError.badProof
        }
        let token = DeviceToken.make()
        try await store.registerVault(body, tokenHash: token.hash, invitationHash: invitationHash)
        context.logger.info("vault registered")
        return try json(SyncDeviceToken(deviceToken: token.token, expiresInSeconds: limits.tokenLifetimeSeconds),
                        status: .created)
    }

    /// Whether `request` may register a vault, before its body is read: open
    /// registration, the right deployment secret, or (spent with the registration) an
    /// invitation.
    ///
    /// - Returns: The hash of the invitation to spend, or `nil` when none is needed.
    /// - Throws: ``SyncServerError/registrationClosed``.
    func admission(_ request: Request) throws -> Data? {
        guard registrationSecret != nil || invitationsEnabled else { return nil }
        if let secret = registrationSecret, let presented = request.headers[Self.registrationSecretHeader],
           DeviceToken.constantTimeEqual(presented, secret) {
            return nil
        }
        guard invitationsEnabled, let invitation = request.headers[Self.invitationHeader],
              let hash = DeviceToken.hash(presented: invitation) else {
            throw SyncServerError.registrationClosed
        }
        return hash
    }

    func join(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let vaultID = try context.parameters.require("vaultId", as: UUID.self)
        let body = try await decode(SyncJoinRequest.self, request, limit: limits.maximumOtherBodyBytes)
        // An unknown vault fails like a bad signature: the caller learns nothing.
        let current = try await store.vaultEpoch(vaultID: vaultID)
        try await checkProof(.join, challenge: body.challenge, signature: body.signature, origin: body.origin,
                             vaultID: vaultID, deviceID: body.deviceID, key: current?.verificationKey)
        // From epoch 1 every device is certified by the epoch's key: a join without a
        // certificate of the current epoch is refused like a bad proof.
        guard let current else { throw SyncServerError.badProof }
        if current.epoch > 0 || body.certificate != nil {
            guard let certificate = body.certificate, certificate.epoch == current.epoch,
                  SyncStore.verify(certificate.signature, certificate.message(vaultID: vaultID), current.verificationKey) else {
                throw SyncServerError.badProof
            }
        }
        let token = DeviceToken.make()
        try await store.addDevice(vaultID: vaultID, deviceID: body.deviceID, tokenHash: token.hash,
                                  maximumActive: limits.maximumDevicesPerVault, certificate: body.certificate,
                                  epoch: current.epoch)
        context.logger.info("device joined")
        return try json(SyncDeviceToken(deviceToken: token.token, expiresInSeconds: limits.tokenLifetimeSeconds),
                        status: .created)
    }

    // MARK: - Authenticated (DeviceAuthenticationMiddleware)

    func push(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let body = try await decode(SyncPushRequest.self, request, limit: limits.maximumPushBytes)
        guard body.envelopes.count <= limits.maximumEnvelopesPerPush else { throw SyncServerError.tooManyEnvelopes }
        let quota = VaultQuota(maximumEnvelopes: Int64(limits.maximumEnvelopesPerVault),
                               maximumBytes: Int64(limits.maximumStoredBytesPerVault))
        let sequences = try await store.push(body.envelopes, vaultID: device.vaultID, deviceID: device.deviceID,
                                             signature: body.signature, quota: quota)
        context.logger.debug("pushed", metadata: ["envelopes": "\(sequences.count)"])
        return try json(SyncPushResponse(sequences: sequences))
    }

    func pull(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
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
        let device = try context.requireDevice()
        guard let keyring = try await store.keyring(vaultID: device.vaultID) else { throw SyncServerError.notFound }
        return try json(keyring)
    }

    func putKeyring(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let body = try await decode(SyncKeyringUpdate.self, request, limit: limits.maximumOtherBodyBytes)
        guard try await store.updateKeyring(vaultID: device.vaultID, deviceID: device.deviceID, update: body) else {
            throw SyncServerError.staleGeneration
        }
        context.logger.info("keyring replaced", metadata: ["generation": "\(body.keyring.generation)"])
        return try json(body.keyring)
    }

    func revoke(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let target = try context.parameters.require("deviceId", as: UUID.self)
        guard target != device.deviceID else { throw SyncServerError.selfRevocation }
        guard try await store.revoke(vaultID: device.vaultID, deviceID: target, by: device.deviceID) else {
            throw SyncServerError.notFound
        }
        context.logger.info("device revoked")
        return Response(status: .noContent)
    }

    func listDevices(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        return try json(try await store.devices(vaultID: device.vaultID))
    }

    /// Stores this device's own certificate of the vault's current epoch (a device of an
    /// earlier build certifies its keys at its first sync with this version).
    func certify(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try ownDevice(context)
        let body = try await decode(SyncDeviceCertificate.self, request, limit: limits.maximumOtherBodyBytes)
        guard body.deviceID == device.deviceID else { throw SyncServerError.notFound }
        try await store.setCertificate(body, vaultID: device.vaultID)
        context.logger.info("device certified", metadata: ["epoch": "\(body.epoch)"])
        return Response(status: .noContent)
    }

    /// Starts the vault's next epoch, revoking devices in the same step.
    func startEpoch(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let body = try await decode(SyncRekeyRequest.self, request, limit: limits.maximumRekeyBodyBytes)
        guard !body.revoked.contains(device.deviceID) else { throw SyncServerError.selfRevocation }
        try await store.startEpoch(body, vaultID: device.vaultID, starter: device.deviceID)
        context.logger.info("epoch started", metadata: ["epoch": "\(body.epoch)", "revoked": "\(body.revoked.count)"])
        return Response(status: .noContent)
    }

    /// This device's package of an epoch another device started.
    func epochPackage(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        guard let epoch = context.parameters.get("epoch").flatMap({ UInt32(String($0)) }) else {
            throw SyncServerError.badRequest("epoch must be an integer from 0 to 4294967295.")
        }
        guard let package = try await store.epochPackage(vaultID: device.vaultID, deviceID: device.deviceID, epoch: epoch) else {
            throw SyncServerError.notFound
        }
        return try json(package)
    }

    /// A new device's pairing request (anonymous: it has no token yet).
    func createPairing(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let body = try await decode(SyncPairingRequest.self, request, limit: limits.maximumOtherBodyBytes)
        try await store.createPairing(body)
        return Response(status: .created)
    }

    /// A pairing's request and answer, to whoever knows its id (derived from a code the
    /// server never sees; the answer opens only with the new device's key).
    func pairing(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let id = try context.parameters.require("pairingId", as: UUID.self)
        guard let state = try await store.pairing(id: id) else { throw SyncServerError.notFound }
        return try json(state)
    }

    /// A device of the vault answers a pairing, once.
    func answerPairing(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let id = try context.parameters.require("pairingId", as: UUID.self)
        let body = try await decode(SyncPairingApproval.self, request, limit: limits.maximumOtherBodyBytes)
        try await store.answerPairing(id: id, body, vaultID: device.vaultID, deviceID: device.deviceID)
        context.logger.info("pairing answered", metadata: ["approved": "\(body.sealed != nil)"])
        return Response(status: .noContent)
    }

    /// The keyring and sealed epoch keys, for a device joining with the recovery kit:
    /// opaque without it, so given to anyone who names the vault (404 for an unknown one).
    func recovery(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let vaultID = try context.parameters.require("vaultId", as: UUID.self)
        guard let bundle = try await store.recoveryBundle(vaultID: vaultID) else { throw SyncServerError.notFound }
        return try json(bundle)
    }

    /// Names a device: its own only (another device's name is its own to give).
    func nameDevice(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try ownDevice(context)
        let body = try await decode(SyncDeviceNameUpdate.self, request, limit: limits.maximumOtherBodyBytes)
        guard try await store.setName(vaultID: device.vaultID, deviceID: device.deviceID, sealedName: body.sealedName) else {
            throw SyncServerError.badToken
        }
        return Response(status: .noContent)
    }

    /// A challenge for renewing the token, asked for with the token itself (expired, or
    /// the one the last renewal replaced): counted apart from the anonymous challenges a
    /// stranger may exhaust for the same device.
    func renewalChallenge(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try ownDevice(context)
        return try await newChallenge(vaultID: device.vaultID, deviceID: device.deviceID, forRenewal: true)
    }

    /// Renews the token: its own device only, with the token (expired, or the one the
    /// last renewal replaced, once that renewal has settled) and a `.renew` proof of the
    /// vault key.
    func renewToken(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try ownDevice(context)
        let body = try await decode(SyncTokenRenewalRequest.self, request, limit: limits.maximumOtherBodyBytes)
        // The device's own certified key, or (a device of an earlier build) the vault's:
        // a device that missed a new epoch still renews, then fetches its package.
        var keys: [Data] = []
        if let certificate = try await store.certificate(vaultID: device.vaultID, deviceID: device.deviceID) {
            keys.append(certificate.signingKey)
        }
        if let key = try await store.verificationKey(vaultID: device.vaultID) { keys.append(key) }
        try await checkProof(.renew, challenge: body.challenge, signature: body.signature, origin: body.origin,
                             vaultID: device.vaultID, deviceID: device.deviceID, keys: keys)
        guard let presented = DeviceToken.bearer(in: request).flatMap(DeviceToken.hash(presented:)) else {
            throw SyncServerError.badToken
        }
        let token = DeviceToken.make()
        try await store.renewToken(vaultID: device.vaultID, deviceID: device.deviceID, presentedHash: presented,
                                   newHash: token.hash, settleSeconds: limits.challengeLifetimeSeconds)
        context.logger.info("device token renewed")
        return try json(SyncDeviceToken(deviceToken: token.token, expiresInSeconds: limits.tokenLifetimeSeconds))
    }

    /// Mints an invitation to register one new vault (served only when invitations are on).
    func invite(_ request: Request, _ context: SyncRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        let invitation = DeviceToken.make()
        guard try await store.makeInvitation(hash: invitation.hash, vaultID: device.vaultID, deviceID: device.deviceID,
                                             lifetimeSeconds: limits.invitationLifetimeSeconds,
                                             maximumPending: limits.maximumPendingInvitations) else {
            throw SyncServerError.invitationQuota
        }
        context.logger.info("invitation minted")
        return try json(SyncInvitation(invitation: invitation.token, expiresInSeconds: limits.invitationLifetimeSeconds),
                        status: .created)
    }

    // MARK: - Helpers

    /// The authenticated device, when the path's `deviceId` is its own (404 otherwise).
    func ownDevice(_ context: SyncRequestContext) throws -> AuthenticatedDevice {
        let device = try context.requireDevice()
        guard try context.parameters.require("deviceId", as: UUID.self) == device.deviceID else {
            throw SyncServerError.notFound
        }
        return device
    }

    /// Spends the challenge, then verifies the Ed25519 signature; any failure is 403.
    func checkProof(_ purpose: SyncDeviceProof.Purpose, challenge: Data, signature: Data, origin named: String?,
                    vaultID: UUID, deviceID: UUID, key: Data?) async throws {
        try await checkProof(purpose, challenge: challenge, signature: signature, origin: named,
                             vaultID: vaultID, deviceID: deviceID, keys: key.map { [$0] } ?? [])
    }

    /// Spends the challenge, then verifies the signature against any of `keys`; any failure is 403.
    func checkProof(_ purpose: SyncDeviceProof.Purpose, challenge: Data, signature: Data, origin named: String?,
                    vaultID: UUID, deviceID: UUID, keys: [Data]) async throws {
        let fresh = try await store.consumeChallenge(challenge, vaultID: vaultID, deviceID: deviceID)
        guard fresh else { throw SyncServerError.badProof }
        // A proof bound to another server's origin: relayed by that server.
        if let named, let origin, named != origin { throw SyncServerError.badProof }
        let message = SyncDeviceProof.message(purpose, challenge: challenge, vaultID: vaultID, deviceID: deviceID,
                                              boundTo: named)
        guard keys.contains(where: { SyncStore.verify(signature, message, $0) }) else { throw SyncServerError.badProof }
    }

    /// Reads a JSON body of at most `limit` bytes.
    ///
    /// A `Content-Type` other than `application/json` (optionally `; charset=utf-8`) is
    /// 415; none at all is read as JSON (a client that omits it is not refused). A
    /// body in another encoding than UTF-8 — a byte-order mark, UTF-16's zero bytes — is
    /// 400 before JSON is parsed: Foundation's decoder would guess and accept it. So is a
    /// key repeated in one object.
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
        let data = Data(bytes)
        // Foundation's decoder keeps one value of a repeated key without a word: two
        // readers of the same body could disagree on what it said.
        guard SyncWireJSON.hasUniqueKeys(data) else {
            throw SyncServerError.badRequest("The body must be JSON at most 64 levels deep, no key twice in one object.")
        }
        return try SyncWireJSON.decoder().decode(T.self, from: data)
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
