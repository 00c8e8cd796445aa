import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore
import MedVaultSyncWire

/// A failed attempt of ``HTTPSyncTransport``: the error the caller sees, and whether
/// trying again can help.
struct HTTPSyncFailure: Error {
    /// How safe another attempt is.
    enum Retry {
        /// Never: the same request would fail the same way.
        case never
        /// The server did not act on the request (it was not reached, or said so: 429,
        /// 503): another attempt is safe for every call.
        case safe
        /// The server may have acted (a timeout, a lost connection, a 500): another
        /// attempt is safe for idempotent calls only.
        case ambiguous
    }

    let error: MedVaultError
    let retry: Retry
}

/// The errors of the HTTP sync transport, with fixed reasons: never a token, a record
/// key, an envelope, a URL or the server's own text.
enum HTTPSyncErrors {
    static let offline = MedVaultError(.offline, reason: "the sync server could not be reached")
    static let connectionLost = MedVaultError(.offline, reason: "the connection to the sync server was lost")
    static let timeout = MedVaultError(.timeout, reason: "the sync server did not answer in time")
    static let cancelled = MedVaultError(.cancelled, reason: "the sync request was cancelled")
    static let unauthorized = MedVaultError(.unauthorized,
                                            reason: "the sync server refused the device token or the device proof")
    static let notFound = MedVaultError(.notFound, reason: "the sync server has no such vault or device for this device")
    static let vaultExists = MedVaultError(.conflict, reason: "the sync server already has this vault")
    static let deviceExists = MedVaultError(.conflict, reason: "this device id is already used in this vault")
    static let envelopeConflict = MedVaultError(
        .conflict, reason: "an envelope id was pushed before with different bytes; nothing of the batch was stored")
    static let staleGeneration = MedVaultError(
        .conflict, reason: "the keyring's generation moved; read it again, merge and retry")
    static let conflict = MedVaultError(.conflict, reason: "the sync server reported a conflict")
    static let staleEpoch = MedVaultError(.conflict, reason: "the vault moved to a newer sync epoch; adopt it and push again")
    static let tokenRenewed = MedVaultError(
        .conflict, reason: "the device token was replaced by a renewal moments ago; use the newest one, or renew later")
    static let registrationClosed = MedVaultError(
        .unauthorized,
        reason: "the sync server registers vaults only with its deployment secret (registrationSecret) or an invitation")
    static let tokenExpired = MedVaultError(
        .tokenExpired, reason: "the sync server's device token expired; renew it with a proof of the vault key")
    static let quotaExceeded = MedVaultError(
        .limitExceeded,
        reason: "the vault is at one of its quotas on the sync server (active devices, envelopes, stored bytes or unused invitations)")
    static let tooLarge = MedVaultError(.limitExceeded, reason: "the request is larger than the sync server accepts")
    static let answerTooLarge = MedVaultError(.limitExceeded,
                                              reason: "the sync server's answer is larger than the configured limit")
    static let badRequest = MedVaultError(.validation, reason: "the sync server refused the request as malformed")
    static let serverError = MedVaultError(.serverError, reason: "the sync server failed")
    static let unavailable = MedVaultError(.serverError, reason: "the sync server cannot reach its database")

    static func rateLimited(retryAfter: Duration?) -> MedVaultError {
        MedVaultError(.rateLimited, reason: "the sync server asked to slow down", retryAfter: retryAfter)
    }

    static func badResponse(_ reason: String) -> MedVaultError {
        MedVaultError(.badResponse, reason: "the sync server's answer is unusable: \(reason)")
    }

    /// The failure for an error thrown by URLSession.
    static func from(_ error: any Error) -> HTTPSyncFailure {
        if let failure = error as? HTTPSyncFailure { return failure }
        if let error = error as? MedVaultError { return HTTPSyncFailure(error: error, retry: .never) }
        if error is CancellationError { return HTTPSyncFailure(error: cancelled, retry: .never) }
        guard let error = error as? URLError else { return HTTPSyncFailure(error: offline, retry: .ambiguous) }
        switch HTTPExchangeFailure(error) {
        case .unreachable: return HTTPSyncFailure(error: offline, retry: .safe)
        case .tls: return HTTPSyncFailure(error: offline, retry: .never)
        case .timedOut: return HTTPSyncFailure(error: timeout, retry: .ambiguous)
        case .connectionLost, .emptyReply: return HTTPSyncFailure(error: connectionLost, retry: .ambiguous)
        case .cancelled: return HTTPSyncFailure(error: cancelled, retry: .never)
        case .unusableAnswer: return HTTPSyncFailure(error: badResponse("the HTTP exchange failed"), retry: .never)
        case .answerTooLarge: return HTTPSyncFailure(error: answerTooLarge, retry: .never)
        case .authenticationRequired, .other: return HTTPSyncFailure(error: offline, retry: .ambiguous)
        }
    }

    /// The failure for an HTTP status other than 2xx, with the server's error code (from
    /// its JSON body, when it sent one) and `Retry-After`.
    static func from(status: Int, code: SyncErrorCode?, retryAfter: Duration?) -> HTTPSyncFailure {
        switch status {
        case 300..<400:
            return HTTPSyncFailure(error: badResponse("a redirect, which is not followed"), retry: .never)
        case 400: return HTTPSyncFailure(error: badRequest, retry: .never)
        case 403 where code == .registrationClosed: return HTTPSyncFailure(error: registrationClosed, retry: .never)
        case 403 where code == .quotaExceeded: return HTTPSyncFailure(error: quotaExceeded, retry: .never)
        case 401 where code == .tokenExpired: return HTTPSyncFailure(error: tokenExpired, retry: .never)
        case 401, 403: return HTTPSyncFailure(error: unauthorized, retry: .never)
        case 404: return HTTPSyncFailure(error: notFound, retry: .never)
        case 409:
            let error: MedVaultError
            switch code {
            case .vaultExists?: error = vaultExists
            case .deviceExists?: error = deviceExists
            case .envelopeConflict?: error = envelopeConflict
            case .staleGeneration?: error = staleGeneration
            case .tokenRenewed?: error = tokenRenewed
            case .staleEpoch?: error = staleEpoch
            default: error = conflict
            }
            return HTTPSyncFailure(error: error, retry: .never)
        case 413: return HTTPSyncFailure(error: tooLarge, retry: .never)
        case 429: return HTTPSyncFailure(error: rateLimited(retryAfter: retryAfter), retry: .safe)
        case 503: return HTTPSyncFailure(error: unavailable, retry: .safe)
        case 500..<600: return HTTPSyncFailure(error: serverError, retry: .ambiguous)
        default: return HTTPSyncFailure(error: badResponse("unexpected HTTP status \(status)"), retry: .never)
        }
    }

    /// The wait a `Retry-After` header asks for (`HTTPExchangeFailure.retryAfter`).
    static func retryAfter(_ header: String?, now: Date = Date()) -> Duration? {
        HTTPExchangeFailure.retryAfter(header, now: now)
    }
}
