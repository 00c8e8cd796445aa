import Foundation

/// The body of `POST /v1/challenges`: which vault and device a challenge is for.
///
/// The server binds the challenge to both ids: it can be answered once, by that device
/// of that vault, before it expires.
public struct SyncChallengeRequest: Sendable, Hashable, Codable {
    /// The vault the device registers or joins.
    public let vaultID: UUID
    /// The device that will sign the challenge.
    public let deviceID: UUID

    /// Creates a request.
    public init(vaultID: UUID, deviceID: UUID) {
        self.vaultID = vaultID
        self.deviceID = deviceID
    }

    private enum CodingKeys: String, CodingKey {
        case vaultID = "vaultId", deviceID = "deviceId"
    }
}

/// The answer to `POST /v1/challenges`: 32 random bytes to sign, single use.
public struct SyncChallenge: Sendable, Hashable, Codable {
    /// The random challenge (``SyncDeviceProof/challengeLength`` bytes).
    public let challenge: Data
    /// Seconds from the response until the server refuses the challenge.
    public let expiresInSeconds: Int

    /// Creates a challenge.
    ///
    /// - Throws: ``SyncWireError`` when `challenge` is not 32 bytes.
    public init(challenge: Data, expiresInSeconds: Int) throws {
        try SyncDeviceProof.require(challenge, length: SyncDeviceProof.challengeLength, field: "challenge")
        self.challenge = challenge
        self.expiresInSeconds = expiresInSeconds
    }

    private enum CodingKeys: String, CodingKey {
        case challenge, expiresInSeconds
    }

    /// Decodes and validates a challenge.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(challenge: try container.decode(Data.self, forKey: .challenge),
                      expiresInSeconds: try container.decode(Int.self, forKey: .expiresInSeconds))
    }
}
