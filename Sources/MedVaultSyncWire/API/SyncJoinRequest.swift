import Foundation

/// The body of `POST /v1/vaults/{vaultId}/devices`: a further device joins a vault.
///
/// The device signs ``SyncDeviceProof/message(_:challenge:vaultID:deviceID:)`` with
/// purpose `.join` under the vault's device-verification private key; the server checks
/// it against the public key stored at registration and answers with a device token.
public struct SyncJoinRequest: Sendable, Hashable, Codable {
    /// The joining device's id (new in this vault).
    public let deviceID: UUID
    /// The challenge from `POST /v1/challenges`, for this vault and device.
    public let challenge: Data
    /// The Ed25519 signature of the join message (64 bytes).
    public let signature: Data
    /// The server origin the signature is bound to
    /// (``SyncDeviceProof/message(_:challenge:vaultID:deviceID:origin:)``), or `nil` for a
    /// signature of the unbound message of earlier builds.
    public let origin: String?
    /// The joining device's certificate of the vault's current epoch, signed with the
    /// epoch's authority key like the proof; required by a vault at epoch 1 or later.
    public let certificate: SyncDeviceCertificate?

    /// Creates a request.
    ///
    /// - Throws: ``SyncWireError`` when a size is wrong, the origin is
    ///   not 1…255 visible ASCII characters, or the certificate is another device's.
    public init(deviceID: UUID, challenge: Data, signature: Data, origin: String? = nil,
                certificate: SyncDeviceCertificate? = nil) throws {
        try SyncDeviceProof.require(challenge, length: SyncDeviceProof.challengeLength, field: "challenge")
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        try SyncDeviceProof.requireOrigin(origin)
        guard certificate.map({ $0.deviceID == deviceID }) ?? true else {
            throw SyncWireError(field: "certificate", reason: "must be the joining device's")
        }
        self.certificate = certificate
        self.deviceID = deviceID
        self.challenge = challenge
        self.signature = signature
        self.origin = origin
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId", challenge, signature, origin, certificate
    }

    /// Decodes and validates a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(deviceID: try c.decode(UUID.self, forKey: .deviceID),
                      challenge: try c.decode(Data.self, forKey: .challenge),
                      signature: try c.decode(Data.self, forKey: .signature),
                      origin: try c.decodeIfPresent(String.self, forKey: .origin),
                      certificate: try c.decodeIfPresent(SyncDeviceCertificate.self, forKey: .certificate))
    }
}

/// The answer to registering, joining or renewing a token: the device's bearer token,
/// shown once.
///
/// The token is 32 random bytes in base64url without padding; the server keeps only its
/// SHA-256. Send it as `Authorization: Bearer <token>` on every other route. It expires
/// ``expiresInSeconds`` after it was issued; the device then renews it
/// (``SyncTokenRenewalRequest``), proving the vault key with the expired token.
public struct SyncDeviceToken: Sendable, Hashable, Codable {
    /// The bearer token.
    public let deviceToken: String
    /// Seconds from the response until the server refuses the token (401
    /// `token_expired`); `nil` from a server whose tokens do not expire.
    public let expiresInSeconds: Int?

    /// Creates a token value.
    public init(deviceToken: String, expiresInSeconds: Int? = nil) {
        self.deviceToken = deviceToken
        self.expiresInSeconds = expiresInSeconds
    }
}
