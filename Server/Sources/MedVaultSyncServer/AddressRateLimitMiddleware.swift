import Foundation
import Hummingbird
import HTTPTypes

/// Takes a rate-limit token for the client's address before a route that has no device
/// yet (challenges, register, join) — and for a device route whose token is missing or
/// unknown — so nobody can make the server sign challenges or look up tokens without
/// limit. 429 with `Retry-After` when the address's bucket is empty.
///
/// The client's address is the peer's, or, when the peer is one of
/// ``trustedProxies``, the last address of `X-Forwarded-For` that is not itself a
/// trusted proxy. From any other peer the header is ignored: a client could name any
/// address to dodge its limit.
struct AddressRateLimitMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext

    let limiter: RateLimiter
    /// Peers whose `X-Forwarded-For` names the client.
    let trustedProxies: Set<String>

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        try limit(request, context)
        return try await next(request, context)
    }

    /// Spends one token of the client address's bucket.
    ///
    /// - Throws: ``SyncServerError/rateLimited(retryAfterSeconds:)`` when it is empty.
    func limit(_ request: Request, _ context: Context) throws {
        if let wait = limiter.take("address:\(clientAddress(request, context))") {
            throw SyncServerError.rateLimited(retryAfterSeconds: wait)
        }
    }

    /// The client's address (see the type's documentation).
    func clientAddress(_ request: Request, _ context: Context) -> String {
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
}
