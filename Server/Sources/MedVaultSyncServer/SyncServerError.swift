import Foundation
import HTTPTypes
import Hummingbird
import MedVaultSyncWire
import NIOCore

/// An error the sync server answers with: a status and a JSON ``SyncErrorBody``.
///
/// Messages are fixed sentences: they never repeat a request's bytes, ids or tokens.
public struct SyncServerError: Error, Sendable, HTTPResponseError {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// The code of the JSON body.
    public let code: SyncErrorCode
    /// The message of the JSON body.
    public let message: String
    /// Seconds to put in `Retry-After` (429 and 503).
    public let retryAfterSeconds: Int?

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ code: SyncErrorCode, _ message: String,
                retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try SyncRoutes.encoder.encode(SyncErrorBody(error: code, message: message))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfterSeconds {
            headers[.retryAfter] = String(retryAfterSeconds)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension SyncServerError {
    static let missingToken = SyncServerError(.unauthorized, .unauthorized,
                                              "This route needs an Authorization: Bearer device token.")
    static let badToken = SyncServerError(.unauthorized, .unauthorized,
                                          "The device token is unknown or its device was revoked.")
    static let tokenExpired = SyncServerError(
        .unauthorized, .tokenExpired,
        "The device token expired; renew it with POST /v1/vaults/{vaultId}/devices/{deviceId}/token.")
    static let tokenRecentlyRenewed = SyncServerError(
        .conflict, .tokenRenewed,
        "This token was replaced by a renewal moments ago: use the newest token, or renew again later.")
    static let invitationsNotAllowed = SyncServerError(
        .forbidden, .forbidden, "Only a vault registered with the deployment secret may mint invitations.")
    static let invitationQuota = SyncServerError(
        .forbidden, .quotaExceeded,
        "The vault holds the most unused invitations this server allows; wait until one is used or expires.")
    static let notFound = SyncServerError(.notFound, .notFound, "No such resource.")
    static let missingMetricsToken = SyncServerError(.unauthorized, .unauthorized,
                                                     "GET /metrics needs the operator's metrics token.")
    static let badProof = SyncServerError(.forbidden, .forbidden,
                                          "The challenge is unknown, used or expired, or the signature does not verify.")
    static let registrationClosed = SyncServerError(
        .forbidden, .registrationClosed,
        "This server registers vaults only with its deployment secret or a valid, unused invitation.")
    static let quotaExceeded = SyncServerError(
        .forbidden, .quotaExceeded,
        "The vault is at one of its quotas (active devices, envelopes or stored bytes). Nothing was stored.")
    static let vaultExists = SyncServerError(.conflict, .vaultExists, "This vault is already registered.")
    static let deviceExists = SyncServerError(.conflict, .deviceExists, "This device id is already used in this vault.")
    static let envelopeConflict = SyncServerError(
        .conflict, .envelopeConflict,
        "An envelope id was pushed before with different bytes; nothing of this batch was stored.")
    static let staleGeneration = SyncServerError(
        .conflict, .staleGeneration,
        "The keyring's generation is no longer the expected one; read it again and retry.")
    static let staleEpoch = SyncServerError(
        .conflict, .staleEpoch,
        "The vault moved to a newer sync epoch: fetch this device's package, re-seal and push again. Nothing was stored.")
    static let epochConflict = SyncServerError(
        .conflict, .epochConflict,
        "A new epoch must be the vault's current one + 1, name every remaining device and be authorised by the current key.")
    static let rekeyRequired = SyncServerError(
        .forbidden, .forbidden,
        "In a vault with sync epochs a device is revoked by starting a new epoch (POST /v1/vaults/{vaultId}/epochs).")
    static let pairingExists = SyncServerError(.conflict, .conflict, "A pairing with this id exists; start another.")
    static let pairingAnswered = SyncServerError(.conflict, .conflict, "This pairing was answered already.")
    static let tooLarge = SyncServerError(.contentTooLarge, .payloadTooLarge,
                                          "The request body is larger than this route accepts.")
    static let tooManyEnvelopes = SyncServerError(.contentTooLarge, .payloadTooLarge,
                                                  "The push holds more envelopes than the server accepts at once.")
    static let selfRevocation = SyncServerError(.badRequest, .badRequest,
                                                "A device cannot revoke itself; revoke it from another device.")
    static let clientGone = SyncServerError(.badRequest, .badRequest,
                                            "The connection closed before the request was read.")
    static let unsupportedMediaType = SyncServerError(.unsupportedMediaType, .badRequest,
                                                      "The body must be JSON in UTF-8 (Content-Type: application/json).")
    static let internalError = SyncServerError(.internalServerError, .internalError,
                                               "The server failed; nothing was stored.")
    static let unavailable = SyncServerError(.serviceUnavailable, .unavailable,
                                             "The database is unreachable; retry later.", retryAfterSeconds: 1)

    static func badRequest(_ message: String) -> SyncServerError {
        SyncServerError(.badRequest, .badRequest, message)
    }

    static func rateLimited(retryAfterSeconds: Int) -> SyncServerError {
        SyncServerError(.tooManyRequests, .rateLimited, "Too many requests; retry after the delay in Retry-After.",
                        retryAfterSeconds: retryAfterSeconds)
    }
}
