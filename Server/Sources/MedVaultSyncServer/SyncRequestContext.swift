import Hummingbird
import NIOCore

/// The request context of the sync server: Hummingbird's core storage, the peer's
/// address, which the rate limiter keys unauthenticated requests by, and the device a
/// device route's token belongs to.
public struct SyncRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or "unknown".
    public let remoteAddress: String
    /// The device the bearer token belongs to, set by ``DeviceAuthenticationMiddleware``
    /// on the device routes; `nil` elsewhere.
    var device: AuthenticatedDevice?

    /// Creates the context of one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The authenticated device of a device route.
    ///
    /// - Throws: ``SyncServerError/missingToken`` on a route outside the authenticated
    ///   group (a routing mistake, answered as a refusal rather than a crash).
    func requireDevice() throws -> AuthenticatedDevice {
        guard let device else { throw SyncServerError.missingToken }
        return device
    }
}
