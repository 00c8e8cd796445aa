import Foundation

/// The body of `POST /v1/vaults/{vaultId}/devices/{deviceId}/token`: an enrolled device
/// renews its bearer token.
///
/// The request carries the device's current token (`Authorization: Bearer`, expired or
/// not, but never a revoked device's) *and* a signature of
/// ``SyncDeviceProof/message(_:challenge:vaultID:deviceID:origin:)`` with purpose
/// `.renew` under the vault's device-verification key: a thief of the token alone cannot
/// renew it, and a holder of the vault key alone cannot take a device's place. The answer
/// is a new ``SyncDeviceToken``; the old token stops working at once.
public struct SyncTokenRenewalRequest: Sendable, Hashable, Codable {
    /// The challenge from `POST /v1/challenges`, for this vault and device.
    public let challenge: Data
    /// The Ed25519 signature of the renew message (64 bytes).
    public let signature: Data
    /// The server origin the signature is bound to, or `nil` for the unbound message.
    public let origin: String?

    /// Creates a request.
    ///
    /// - Throws: ``SyncWireError`` when a size is wrong or the origin is
    ///   not 1…255 visible ASCII characters.
    public init(challenge: Data, signature: Data, origin: String? = nil) throws {
        try SyncDeviceProof.require(challenge, length: SyncDeviceProof.challengeLength, field: "challenge")
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        try SyncDeviceProof.requireOrigin(origin)
        self.challenge = challenge
        self.signature = signature
        self.origin = origin
    }

    private enum CodingKeys: String, CodingKey {
        case challenge, signature, origin
    }

    /// Decodes and validates a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(challenge: try c.decode(Data.self, forKey: .challenge),
                      signature: try c.decode(Data.self, forKey: .signature),
                      origin: try c.decodeIfPresent(String.self, forKey: .origin))
    }
}
