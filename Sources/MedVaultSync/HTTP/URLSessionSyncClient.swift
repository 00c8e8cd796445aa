import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The ``HTTPSyncClient`` over one ephemeral URLSession: no cookies, no cache, no
/// credential store; redirects refused and answers bounded by ``HTTPSyncSessionDelegate``.
final class URLSessionSyncClient: HTTPSyncClient {
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
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// `idempotent` is not used: URLSession offers no per-request control of connection
    /// reuse.
    func data(for request: URLRequest, limit: Int, idempotent: Bool) async throws -> (Data, HTTPURLResponse) {
        try await delegate.data(for: request, session: session, limit: limit)
    }
}
