import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore

/// The errors of the ICD-API client, with fixed reasons: never a credential, a token, a
/// server's text or a search text.
enum ICD11Errors {
    static let offline = MedVaultError(.offline, reason: "the ICD-11 server could not be reached")
    static let timeout = MedVaultError(.timeout, reason: "the ICD-11 server did not answer in time")
    static let unauthorized = MedVaultError(.unauthorized, reason: "the ICD-11 server refused the credentials")
    static let tokenRefused = MedVaultError(.unauthorized, reason: "the ICD-11 token endpoint refused the client credentials")
    static let notFound = MedVaultError(.notFound, reason: "the ICD-11 release has no such entity")
    static let serverError = MedVaultError(.serverError, reason: "the ICD-11 server failed")
    static let cancelled = MedVaultError(.cancelled, reason: "the ICD-11 request was cancelled")

    static func rateLimited(retryAfter: Duration?) -> MedVaultError {
        MedVaultError(.rateLimited, reason: "the ICD-11 server asked to slow down", retryAfter: retryAfter)
    }

    static func badResponse(_ reason: String) -> MedVaultError {
        MedVaultError(.badResponse, reason: "the ICD-11 server's answer is unusable: \(reason)")
    }

    /// The error for a transport failure.
    static func from(_ error: any Error) -> MedVaultError {
        if let error = error as? MedVaultError { return error }
        if error is CancellationError { return cancelled }
        guard let error = error as? URLError else { return offline }
        switch HTTPExchangeFailure(error) {
        case .timedOut: return timeout
        case .cancelled: return cancelled
        case .unreachable, .tls, .connectionLost, .other: return offline
        case .emptyReply, .unusableAnswer, .answerTooLarge: return badResponse("the HTTP exchange failed")
        case .authenticationRequired: return unauthorized
        }
    }

    /// The error for an HTTP status other than 2xx.
    static func from(status: Int, retryAfter: Duration?) -> MedVaultError {
        switch status {
        case 401, 403: return unauthorized
        case 404: return notFound
        case 429: return rateLimited(retryAfter: retryAfter)
        case 500...599: return serverError
        default: return badResponse("unexpected HTTP status \(status)")
        }
    }

    /// The wait a `Retry-After` header asks for (`HTTPExchangeFailure.retryAfter`).
    static func retryAfter(_ header: String?, now: Date = Date()) -> Duration? {
        HTTPExchangeFailure.retryAfter(header, now: now)
    }
}
