import Foundation
#if canImport(FoundationNetworking)
import CCurlHTTP
import FoundationNetworking
#endif

/// What sends one request of ``HTTPSyncTransport`` and returns its whole answer: libcurl
/// on Linux (``CurlSyncClient``), URLSession elsewhere (``URLSessionSyncClient``).
///
/// Both follow no redirect (a 3xx comes back as the answer), keep no cookie, cache or
/// credential, and read at most `limit` bytes of an answer, cancelling a larger one as
/// it arrives.
protocol HTTPSyncClient: Sendable {
    /// Sends `request` (its method, URL, headers, body and `timeoutInterval`) and returns
    /// the answer. A request that is not `idempotent` (it spends a challenge) must reach
    /// the server at most once: both clients send it on a fresh connection, which the
    /// HTTP stack never resends on by itself.
    ///
    /// - Throws: `HTTPSyncFailure` (`answerTooLarge`) for an answer over `limit`;
    ///   `CancellationError` at once when the calling task is cancelled; a `URLError`
    ///   for an exchange that failed before an answer (see `HTTPExchangeFailure`).
    func data(for request: URLRequest, limit: Int, idempotent: Bool) async throws -> (Data, HTTPURLResponse)
}

/// Which ``HTTPSyncClient`` a transport uses.
enum HTTPSyncBackend: Sendable, CaseIterable {
    /// FoundationNetworking's or Foundation's URLSession.
    case urlSession
    /// libcurl's easy interface on a thread of its own (Linux only).
    case curl

    /// libcurl on Linux: FoundationNetworking's URLSession spins a core while it waits
    /// for the answer to a request whose body is larger than 64 KiB (docs/sync.md,
    /// "The HTTP client on Linux"). URLSession elsewhere, and where libcurl's global
    /// initialisation is not thread-safe (before 7.84).
    static var platformDefault: HTTPSyncBackend {
        available[0]
    }

    /// The backends this platform has, the default first.
    static var available: [HTTPSyncBackend] {
        #if canImport(FoundationNetworking)
        medvault_http_available() != 0 ? [.curl, .urlSession] : [.urlSession]
        #else
        [.urlSession]
        #endif
    }
}
