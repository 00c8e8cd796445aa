import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``HTTPSyncClient`` over one ephemeral URLSession: no cookies, no cache, no
/// credential store; redirects refused and answers bounded by ``HTTPSyncSessionDelegate``.
final class URLSessionSyncClient: HTTPSyncClient {
    private let configuration: URLSessionConfiguration
    private let session: URLSession
    private let delegate = HTTPSyncSessionDelegate()

    init(timeout: Duration) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = HTTPSyncRetryPolicy.seconds(timeout)
        configuration.timeoutIntervalForResource = HTTPSyncRetryPolicy.seconds(timeout)
        self.configuration = configuration
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// A request that is not `idempotent` goes through a session of its own, invalidated
    /// after it: no connection kept from an earlier call, which the HTTP stack might send
    /// it on and then send it again when that connection turns out dead.
    func data(for request: URLRequest, limit: Int, idempotent: Bool) async throws -> (Data, HTTPURLResponse) {
        guard !idempotent else { return try await delegate.data(for: request, session: session, limit: limit) }
        let delegate = HTTPSyncSessionDelegate()
        let oneOff = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { oneOff.finishTasksAndInvalidate() }
        return try await delegate.data(for: request, session: oneOff, limit: limit)
    }
}
