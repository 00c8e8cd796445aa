import Foundation
import MedVaultCore

/// The errors of the ICD-API client, with fixed reasons: never a credential, a token, a
/// server's text or a search text. What any HTTP service's failure means is ``http``
/// (shared with the sync transport); the client needs the error only, not the retry rule.
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
        http.failure(error).error
    }

    /// The error for an HTTP status other than 2xx.
    static func from(status: Int, retryAfter: Duration?) -> MedVaultError {
        http.failure(status: status, retryAfter: retryAfter).error
    }
}
