import Foundation

/// The errors of one HTTP service MedVault talks to (the sync server, the WHO ICD-API),
/// in fixed words, and the one mapping of a failed exchange (``HTTPExchangeFailure``) or
/// a status other than 2xx to them, with how safe another attempt is.
///
/// Both HTTP clients use it, so the same failure is the same `MedVaultError` code and
/// retry rule in both; a client adds only what its own server means by a status (the
/// sync server's error codes on 401, 403 and 409). Reasons name the service and never
/// hold a token, a URL, a request's content or the server's own text.
///
/// Package API: no networking is linked by it (`URLError` is Foundation's).
package struct HTTPServiceErrors: Sendable {
    /// How safe another attempt of a failed request is.
    package enum Retry: Sendable, Equatable {
        /// Never: the same request would fail the same way.
        case never
        /// The server did not act on the request (it was not reached, or said so: 429,
        /// 503): another attempt is safe for every call.
        case safe
        /// The server may have acted (a timeout, a lost connection, a 500): another
        /// attempt is safe for idempotent calls only.
        case ambiguous
    }

    /// A failed attempt: the error the caller sees, and whether trying again can help.
    package struct Failure: Error, Sendable {
        /// The error the caller sees.
        package let error: MedVaultError
        /// How safe another attempt is.
        package let retry: Retry

        /// A failure.
        package init(error: MedVaultError, retry: Retry) {
            self.error = error
            self.retry = retry
        }
    }

    /// The server was not reached (or TLS failed, or the system asked for credentials).
    package let offline: MedVaultError
    /// The connection was lost after the request went out.
    package let connectionLost: MedVaultError
    /// No answer in time.
    package let timeout: MedVaultError
    /// The request was cancelled.
    package let cancelled: MedVaultError
    /// 401 or 403.
    package let unauthorized: MedVaultError
    /// 404.
    package let notFound: MedVaultError
    /// 400.
    package let badRequest: MedVaultError
    /// 409.
    package let conflict: MedVaultError
    /// 413.
    package let tooLarge: MedVaultError
    /// The answer is larger than the client accepts.
    package let answerTooLarge: MedVaultError
    /// 503.
    package let unavailable: MedVaultError
    /// Another 5xx.
    package let serverError: MedVaultError
    private let server: String

    /// The errors of a service.
    ///
    /// - Parameters:
    ///   - server: How reasons name the server: `"the sync server"`.
    ///   - request: How they name a request: `"the sync request"`.
    ///   - credentials: What a 401 or 403 refused: `"the credentials"`.
    ///   - missing: What a 404 means: `"the ICD-11 release has no such entity"`.
    ///   - unavailable: What a 503 means: `"the sync server cannot reach its database"`.
    package init(server: String, request: String, credentials: String, missing: String, unavailable: String) {
        self.server = server
        offline = MedVaultError(.offline, reason: "\(server) could not be reached")
        connectionLost = MedVaultError(.offline, reason: "the connection to \(server) was lost")
        timeout = MedVaultError(.timeout, reason: "\(server) did not answer in time")
        cancelled = MedVaultError(.cancelled, reason: "\(request) was cancelled")
        unauthorized = MedVaultError(.unauthorized, reason: "\(server) refused \(credentials)")
        notFound = MedVaultError(.notFound, reason: missing)
        badRequest = MedVaultError(.validation, reason: "\(server) refused the request as malformed")
        conflict = MedVaultError(.conflict, reason: "\(server) reported a conflict")
        tooLarge = MedVaultError(.limitExceeded, reason: "the request is larger than \(server) accepts")
        answerTooLarge = MedVaultError(.limitExceeded, reason: "\(server)'s answer is larger than the configured limit")
        self.unavailable = MedVaultError(.serverError, reason: unavailable)
        serverError = MedVaultError(.serverError, reason: "\(server) failed")
    }

    /// 429, with the wait the server asked for.
    package func rateLimited(retryAfter: Duration?) -> MedVaultError {
        MedVaultError(.rateLimited, reason: "\(server) asked to slow down", retryAfter: retryAfter)
    }

    /// An answer the client cannot use; `reason` is fixed text, never the answer's.
    package func badResponse(_ reason: String) -> MedVaultError {
        MedVaultError(.badResponse, reason: "\(server)'s answer is unusable: \(reason)")
    }

    /// The failure for an error of the exchange (URLSession's `URLError`, a cancellation,
    /// or a `MedVaultError` already made, which is kept).
    package func failure(_ error: any Error) -> Failure {
        if let failure = error as? Failure { return failure }
        if let error = error as? MedVaultError { return Failure(error: error, retry: .never) }
        if error is CancellationError { return Failure(error: cancelled, retry: .never) }
        guard let error = error as? URLError else { return Failure(error: offline, retry: .ambiguous) }
        switch HTTPExchangeFailure(error) {
        case .unreachable: return Failure(error: offline, retry: .safe)
        case .tls: return Failure(error: offline, retry: .never)
        case .timedOut: return Failure(error: timeout, retry: .ambiguous)
        case .connectionLost, .emptyReply: return Failure(error: connectionLost, retry: .ambiguous)
        case .cancelled: return Failure(error: cancelled, retry: .never)
        case .unusableAnswer: return Failure(error: badResponse("the HTTP exchange failed"), retry: .never)
        case .answerTooLarge: return Failure(error: answerTooLarge, retry: .never)
        case .authenticationRequired, .other: return Failure(error: offline, retry: .ambiguous)
        }
    }

    /// The failure for an HTTP status other than 2xx, by what HTTP itself says it means;
    /// a client checks its server's own meanings (an error code in the body) first.
    package func failure(status: Int, retryAfter: Duration?) -> Failure {
        switch status {
        case 300..<400: return Failure(error: badResponse("a redirect, which is not followed"), retry: .never)
        case 400: return Failure(error: badRequest, retry: .never)
        case 401, 403: return Failure(error: unauthorized, retry: .never)
        case 404: return Failure(error: notFound, retry: .never)
        case 409: return Failure(error: conflict, retry: .never)
        case 413: return Failure(error: tooLarge, retry: .never)
        case 429: return Failure(error: rateLimited(retryAfter: retryAfter), retry: .safe)
        case 503: return Failure(error: unavailable, retry: .safe)
        case 500..<600: return Failure(error: serverError, retry: .ambiguous)
        default: return Failure(error: badResponse("unexpected HTTP status \(status)"), retry: .never)
        }
    }
}
