import Hummingbird
import NIOCore

/// The request context of the sync server: Hummingbird's core storage and the peer's
/// address, which the rate limiter keys unauthenticated requests by.
public struct SyncRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, or "unknown".
    public let remoteAddress: String

    /// Creates the context of one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
