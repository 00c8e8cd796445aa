import Foundation
import MedVaultCore

/// The errors of the ICD-API client, with fixed reasons: never a credential, a token, a
/// server's text or a search text. What any HTTP service's failure means is ``http``
/// (shared with the sync transport); the client needs the error only, not the retry rule,
/// and adds what the ICD-API means:
///
/// - the system asking for credentials is `unauthorized`, not `offline`: the offline
///   cache (`ICD11CachedCatalog`) answers `offline`, and a credentials failure must be
///   seen, never hidden by it;
/// - an answer too large is `badResponse`, as the client's own 8 MiB check says it;
/// - 400, 409 and 413 are statuses the ICD-API does not answer to this client's requests:
///   an unexpected answer (`badResponse`), as any other status it does not define.
enum ICD11Errors {
    /// The errors every HTTP service has, named for the WHO ICD-API.
    static let http = HTTPServiceErrors(
        server: "the ICD-11 server", request: "the ICD-11 request", credentials: "the credentials",
        missing: "the ICD-11 release has no such entity", unavailable: "the ICD-11 server is unavailable")

    static let tokenRefused = MedVaultError(.unauthorized, reason: "the ICD-11 token endpoint refused the client credentials")

    static func badResponse(_ reason: String) -> MedVaultError {
        http.badResponse(reason)
    }

    /// The error for a transport failure.
    static func from(_ error: any Error) -> MedVaultError {
        if let error = error as? URLError {
            switch HTTPExchangeFailure(error) {
            case .authenticationRequired: return http.unauthorized
            case .answerTooLarge: return badResponse("the answer is too large")
            default: break
            }
        }
        return http.failure(error).error
    }

    /// The error for an HTTP status other than 2xx.
    static func from(status: Int, retryAfter: Duration?) -> MedVaultError {
        switch status {
        case 400, 409, 413: badResponse("unexpected HTTP status \(status)")
        default: http.failure(status: status, retryAfter: retryAfter).error
        }
    }
}
