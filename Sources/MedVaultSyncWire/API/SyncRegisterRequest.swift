import Foundation

/// The body of `POST /v1/vaults`: a new vault, its first device and its keyring.
///
/// The device signs ``SyncDeviceProof/message(_:challenge:vaultID:deviceID:)`` with
/// purpose `.register` under the private half of ``verificationKey``, proving it holds
/// that key; the server stores the public key and answers with a device token.
public struct SyncRegisterRequest: Sendable, Hashable, Codable {
    /// The new vault's id.
    public let vaultID: UUID
    /// The first device's id.
    public let deviceID: UUID
    /// The vault's Ed25519 device-verification public key (32 bytes).
    public let verificationKey: Data
    /// The vault's keyring and its generation.
    public let keyring: SyncKeyringBlob
    /// The challenge from `POST /v1/challenges`, for these ids.
    public let challenge: Data
    /// The Ed25519 signature of the register message (64 bytes).
    public let signature: Data
    /// The server origin the signature is bound to
    /// (``SyncDeviceProof/message(_:challenge:vaultID:deviceID:origin:)``), or `nil` for a
    /// signature of the unbound message of earlier builds.
    public let origin: String?
    /// The vault's first sync epoch: 1 for a vault registered by a build with epochs (its
    /// ``verificationKey`` is then the epoch's authority key), `nil` (epoch 0) before.
    public let epoch: UInt32?
    /// The epoch keys sealed for the recovery kit (`SealedEpochKeys`), with ``epoch``.
    public let epochKeys: Data?
    /// The first device's certificate of ``epoch``, with it.
    public let certificate: SyncDeviceCertificate?

    /// Creates a request.
    ///
    /// - Throws: ``SyncWireError`` when a size is wrong, the origin is
    ///   not 1…255 visible ASCII characters, or `epoch`, `epochKeys` and `certificate` are
    ///   not given together (epoch at least 1, for this device, of that epoch).
    public init(vaultID: UUID, deviceID: UUID, verificationKey: Data, keyring: SyncKeyringBlob,
                challenge: Data, signature: Data, origin: String? = nil, epoch: UInt32? = nil,
                epochKeys: Data? = nil, certificate: SyncDeviceCertificate? = nil) throws {
        try SyncDeviceProof.require(verificationKey, length: SyncDeviceProof.verificationKeyLength,
                                    field: "verificationKey")
        try SyncDeviceProof.require(challenge, length: SyncDeviceProof.challengeLength, field: "challenge")
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        try SyncDeviceProof.requireOrigin(origin)
        if epoch != nil || epochKeys != nil || certificate != nil {
            guard let epoch, epoch > 0, let epochKeys, !epochKeys.isEmpty,
                  epochKeys.count <= SyncRekeyRequest.maximumEpochKeysLength,
                  let certificate, certificate.epoch == epoch, certificate.deviceID == deviceID else {
                throw SyncWireError(field: "epoch",
                                 reason: "epoch, epoch keys and this device's certificate of it go together")
            }
        }
        self.epoch = epoch
        self.epochKeys = epochKeys
        self.certificate = certificate
        self.vaultID = vaultID
        self.deviceID = deviceID
        self.verificationKey = verificationKey
        self.keyring = keyring
        self.challenge = challenge
        self.signature = signature
        self.origin = origin
    }

    private enum CodingKeys: String, CodingKey {
        case vaultID = "vaultId", deviceID = "deviceId", verificationKey, keyring, challenge, signature, origin
        case epoch, epochKeys, certificate
    }

    /// Decodes and validates a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(vaultID: try c.decode(UUID.self, forKey: .vaultID),
                      deviceID: try c.decode(UUID.self, forKey: .deviceID),
                      verificationKey: try c.decode(Data.self, forKey: .verificationKey),
                      keyring: try c.decode(SyncKeyringBlob.self, forKey: .keyring),
                      challenge: try c.decode(Data.self, forKey: .challenge),
                      signature: try c.decode(Data.self, forKey: .signature),
                      origin: try c.decodeIfPresent(String.self, forKey: .origin),
                      epoch: try c.decodeIfPresent(UInt32.self, forKey: .epoch),
                      epochKeys: try c.decodeIfPresent(Data.self, forKey: .epochKeys),
                      certificate: try c.decodeIfPresent(SyncDeviceCertificate.self, forKey: .certificate))
    }
}
