import Foundation
import MedVaultCore
import MedVaultSyncWire

/// A failed attempt of ``HTTPSyncTransport``: the error the caller sees, and whether
/// trying again can help (the mapping both HTTP clients share).
typealias HTTPSyncFailure = HTTPServiceErrors.Failure

/// The errors of the HTTP sync transport, with fixed reasons: never a token, a record
/// key, an envelope, a URL or the server's own text. What any HTTP service's failure
/// means is ``http`` (shared with the ICD-API client); what follows is what the sync
/// server's own error codes add.
enum HTTPSyncErrors {
    /// The errors every HTTP service has, named for the sync server.
    static let http = HTTPServiceErrors(
        server: "the sync server", request: "the sync request",
        credentials: "the device token or the device proof",
        missing: "the sync server has no such vault or device for this device",
        unavailable: "the sync server cannot reach its database")

    static let vaultExists = MedVaultError(.conflict, reason: "the sync server already has this vault")
    static let deviceExists = MedVaultError(.conflict, reason: "this device id is already used in this vault")
    static let envelopeConflict = MedVaultError(
        .conflict, reason: "an envelope id was pushed before with different bytes; nothing of the batch was stored")
    static let staleGeneration = MedVaultError(
        .conflict, reason: "the keyring's generation moved; read it again, merge and retry")
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

    /// The failure for an HTTP status other than 2xx, with the server's error code (from
    /// its JSON body, when it sent one) and `Retry-After`: the code's own meaning first,
    /// then what the status means for any service (``http``).
    static func from(status: Int, code: SyncErrorCode?, retryAfter: Duration?) -> HTTPSyncFailure {
        let specific: MedVaultError? = switch (status, code) {
        case (403, .registrationClosed?): registrationClosed
        case (403, .quotaExceeded?): quotaExceeded
        case (401, .tokenExpired?): tokenExpired
        case (409, .vaultExists?): vaultExists
        case (409, .deviceExists?): deviceExists
        case (409, .envelopeConflict?): envelopeConflict
        case (409, .staleGeneration?): staleGeneration
        case (409, .tokenRenewed?): tokenRenewed
        case (409, .staleEpoch?): staleEpoch
        default: nil
        }
        if let specific { return HTTPSyncFailure(error: specific, retry: .never) }
        return http.failure(status: status, retryAfter: retryAfter)
    }
}
