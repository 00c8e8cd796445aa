import Foundation

/// How an HTTP exchange failed before any status came back, read from URLSession's
/// `URLError`, and the `Retry-After` header's wait: what MedVault's two HTTP clients (the
/// sync transport and the WHO ICD-API client) share. ``HTTPServiceErrors`` maps a kind
/// to the error and retry rule both clients use.
///
/// Package API: no networking is linked by it (`URLError` is Foundation's).
package enum HTTPExchangeFailure: Sendable, Equatable {
    /// No connection was made: nothing was sent.
    case unreachable
    /// TLS failed (an untrusted or expired certificate, a refused client certificate):
    /// nothing was sent, and the same request fails the same way.
    case tls
    /// No answer in time: the server may have acted.
    case timedOut
    /// The connection was lost after the request was sent: the server may have acted.
    case connectionLost
    /// The server closed the connection without an answer. On Linux (FoundationNetworking
    /// over libcurl) a server killed, restarted or dropped by a proxy after reading the
    /// request shows as this (`badServerResponse`, "empty reply"): it may have acted.
    case emptyReply
    /// The exchange was cancelled.
    case cancelled
    /// The answer could not be read (unparseable, redirect loops).
    case unusableAnswer
    /// The answer is larger than the client accepts.
    case answerTooLarge
    /// The system asked for credentials the client does not give.
    case authenticationRequired
    /// Anything else.
    case other

    /// The kind of `error`.
    package init(_ error: URLError) {
        switch error.code {
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
             .internationalRoamingOff, .dataNotAllowed, .callIsActive, .cannotLoadFromNetwork:
            self = .unreachable
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            self = .tls
        case .timedOut:
            self = .timedOut
        case .networkConnectionLost:
            self = .connectionLost
        case .badServerResponse:
            self = .emptyReply
        case .cancelled:
            self = .cancelled
        case .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .zeroByteResource,
             .httpTooManyRedirects, .redirectToNonExistentLocation:
            self = .unusableAnswer
        case .dataLengthExceedsMaximum:
            self = .answerTooLarge
        case .userAuthenticationRequired, .userCancelledAuthentication:
            self = .authenticationRequired
        default:
            self = .other
        }
    }

    /// The wait a `Retry-After` header asks for: delay seconds or an HTTP date, at most a
    /// day; `nil` when absent or unreadable.
    package static func retryAfter(_ header: String?, now: Date = Date()) -> Duration? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        let day = 86_400
        if let seconds = Int(header), seconds >= 0 { return .seconds(min(seconds, day)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: header) else { return nil }
        return .seconds(max(0, min(Int(date.timeIntervalSince(now).rounded(.up)), day)))
    }
}
