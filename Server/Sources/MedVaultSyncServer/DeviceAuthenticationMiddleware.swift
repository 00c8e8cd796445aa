import Foundation
import Hummingbird

/// Authenticates the bearer token of the device routes (`/v1/vaults/{vaultId}/…` but
/// join) before their handler runs, and sets ``SyncRequestContext/device``.
///
/// - no token, or an unknown or revoked device's: 401 `unauthorized`, after a token of
///   the client address's rate limit (guessing tokens costs like any anonymous request);
/// - a token past the server's token lifetime, or the one the device's last renewal
///   replaced: 401 `token_expired` (the device renews, or picks up the newest token),
///   except on the renewal routes (``acceptsExpiredToken``);
/// - then a token of the device's own rate limit (429 when empty);
/// - a token of another vault than the path's: 404, the answer for an unknown vault.
struct DeviceAuthenticationMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext

    let store: SyncStore
    let limiter: RateLimiter
    let addressLimit: AddressRateLimitMiddleware
    let tokenLifetimeSeconds: Int
    /// The renewal routes: an expired token, or the one a renewal replaced, is accepted.
    var acceptsExpiredToken = false

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.device = try await authenticate(request, context)
        return try await next(request, context)
    }

    func authenticate(_ request: Request, _ context: Context) async throws -> AuthenticatedDevice {
        guard let token = DeviceToken.bearer(in: request) else {
            try addressLimit.limit(request, context)
            throw SyncServerError.missingToken
        }
        guard let hash = DeviceToken.hash(presented: token),
              let device = try await store.device(tokenHash: hash, lifetimeSeconds: tokenLifetimeSeconds) else {
            try addressLimit.limit(request, context)
            throw SyncServerError.badToken
        }
        if let wait = limiter.take("device:\(device.deviceID)") {
            throw SyncServerError.rateLimited(retryAfterSeconds: wait)
        }
        guard let vaultID = context.parameters.get("vaultId", as: UUID.self), vaultID == device.vaultID else {
            throw SyncServerError.notFound
        }
        if device.needsRenewal, !acceptsExpiredToken { throw SyncServerError.tokenExpired }
        return device
    }
}
