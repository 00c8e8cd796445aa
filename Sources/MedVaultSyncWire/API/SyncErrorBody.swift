import Foundation

/// The JSON body of every error the sync server answers:
/// `{ "error": "<code>", "message": "<text>" }`.
///
/// The message is for people and never repeats a request's bytes, ids or tokens;
/// programs switch on ``error``.
public struct SyncErrorBody: Sendable, Hashable, Codable {
    /// The machine-readable code.
    public let error: SyncErrorCode
    /// A short English explanation.
    public let message: String

    /// Creates an error body.
    public init(error: SyncErrorCode, message: String) {
        self.error = error
        self.message = message
    }
}

/// The codes of ``SyncErrorBody``: an open set, so a newer server may add codes.
public struct SyncErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code as it appears in JSON.
    public let rawValue: String

    /// Creates a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Decodes a code from a JSON string.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }

    /// 400: the body is not the expected JSON, or a value is out of range.
    public static let badRequest = SyncErrorCode(rawValue: "bad_request")
    /// 401: no token, an unknown token or a revoked device's token.
    public static let unauthorized = SyncErrorCode(rawValue: "unauthorized")
    /// 401: the device token expired; renew it (`POST …/devices/{deviceId}/token`) with
    /// a proof of the vault key.
    public static let tokenExpired = SyncErrorCode(rawValue: "token_expired")
    /// 403: the signature does not verify, or the challenge is unknown, used or expired.
    public static let forbidden = SyncErrorCode(rawValue: "forbidden")
    /// 403: the server registers vaults only with its deployment secret
    /// (`MedVault-Registration-Secret`) or an invitation (`MedVault-Invitation`), and the
    /// request carried neither a right secret nor a valid, unused invitation.
    public static let registrationClosed = SyncErrorCode(rawValue: "registration_closed")
    /// 403: the vault is at one of its quotas (active devices, envelopes, stored bytes or
    /// unused invitations); nothing of the request was stored.
    public static let quotaExceeded = SyncErrorCode(rawValue: "quota_exceeded")
    /// 404: no such route, vault or device for this token.
    public static let notFound = SyncErrorCode(rawValue: "not_found")
    /// 409: the vault is already registered.
    public static let vaultExists = SyncErrorCode(rawValue: "vault_exists")
    /// 409: the device id is already (or was once) used in this vault.
    public static let deviceExists = SyncErrorCode(rawValue: "device_exists")
    /// 409: an envelope id was pushed before with different bytes.
    public static let envelopeConflict = SyncErrorCode(rawValue: "envelope_conflict")
    /// 409: a renewal with the token that the device's last renewal replaced, moments
    /// after it: another process of the device holds the new token. Use the newest stored
    /// token, or renew again later.
    public static let tokenRenewed = SyncErrorCode(rawValue: "token_renewed")
    /// 409: the keyring's generation is no longer the expected one.
    public static let staleGeneration = SyncErrorCode(rawValue: "stale_generation")
    /// 409: the vault moved to a newer sync epoch; the device adopts it (its package of the
    /// new epoch's keys waits at `GET …/epochs/{epoch}/package`), re-seals and pushes again.
    public static let staleEpoch = SyncErrorCode(rawValue: "stale_epoch")
    /// 409: a new epoch must follow the vault's current one, whose key authorises it.
    public static let epochConflict = SyncErrorCode(rawValue: "epoch_conflict")
    /// 409: a pairing with this id exists, or was answered already.
    public static let conflict = SyncErrorCode(rawValue: "conflict")
    /// 413: the body, the batch or the keyring is larger than the server allows.
    public static let payloadTooLarge = SyncErrorCode(rawValue: "payload_too_large")
    /// 429: the device (or address) sent too many requests; see `Retry-After`.
    public static let rateLimited = SyncErrorCode(rawValue: "rate_limited")
    /// 500: the server failed; nothing was stored.
    public static let internalError = SyncErrorCode(rawValue: "internal_error")
    /// 503: the database is unreachable.
    public static let unavailable = SyncErrorCode(rawValue: "unavailable")
}

/// The answer to `GET /v1/health`.
public struct SyncHealth: Sendable, Hashable, Codable {
    /// `ok` when the server reaches its database.
    public let status: String

    /// Creates a health value.
    public init(status: String) { self.status = status }
}
