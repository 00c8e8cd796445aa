import Foundation

/// A device's public keys, signed by the vault's authority key of one sync epoch: what
/// the server stores and lists for each device, and what every device checks before it
/// seals a new epoch's keys to another (docs/sync.md, "Epochs").
///
/// Only a holder of the epoch's key — an enrolled device, or the recovery kit — can sign
/// one; the server keeps the authority's public key to check them and cannot make one, so
/// it cannot slip its own key into the list that a revocation re-keys for.
///
/// The signed message is ``message(vaultID:deviceID:epoch:signingKey:boxKey:)``.
public struct SyncDeviceCertificate: Sendable, Hashable, Codable {
    /// Length of a public key.
    public static let keyLength = 32

    /// The device.
    public let deviceID: UUID
    /// The epoch whose authority key signed it.
    public let epoch: UInt32
    /// The device's Ed25519 public key: it signs the epoch keys it sends to the others.
    public let signingKey: Data
    /// The device's X25519 public key: the others seal a new epoch's keys to it.
    public let boxKey: Data
    /// The authority's Ed25519 signature of ``message(vaultID:deviceID:epoch:signingKey:boxKey:)``.
    public let signature: Data

    /// Creates a certificate.
    ///
    /// - Throws: ``SyncWireError`` naming the field whose size is wrong.
    public init(deviceID: UUID, epoch: UInt32, signingKey: Data, boxKey: Data, signature: Data) throws {
        try SyncDeviceProof.require(signingKey, length: Self.keyLength, field: "signingKey")
        try SyncDeviceProof.require(boxKey, length: Self.keyLength, field: "boxKey")
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        self.deviceID = deviceID
        self.epoch = epoch
        self.signingKey = signingKey
        self.boxKey = boxKey
        self.signature = signature
    }

    /// `MedVault sync device certificate v1` ‖ vault id (16) ‖ device id (16) ‖ epoch (u32,
    /// big-endian) ‖ signing key (32) ‖ box key (32).
    public static func message(vaultID: UUID, deviceID: UUID, epoch: UInt32, signingKey: Data, boxKey: Data) -> Data {
        var message = Data("MedVault sync device certificate v1".utf8)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: deviceID.syncWireBytes)
        message.append(contentsOf: epoch.syncWireBytes)
        message.append(signingKey)
        message.append(boxKey)
        return message
    }

    /// What this certificate's signature signs, for `vaultID`.
    public func message(vaultID: UUID) -> Data {
        Self.message(vaultID: vaultID, deviceID: deviceID, epoch: epoch, signingKey: signingKey, boxKey: boxKey)
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId", epoch, signingKey, boxKey, signature
    }

    /// Decodes and validates a certificate.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(deviceID: try c.decode(UUID.self, forKey: .deviceID),
                      epoch: try c.decode(UInt32.self, forKey: .epoch),
                      signingKey: try c.decode(Data.self, forKey: .signingKey),
                      boxKey: try c.decode(Data.self, forKey: .boxKey),
                      signature: try c.decode(Data.self, forKey: .signature))
    }
}

extension UInt32 {
    /// The value's 4 bytes, big-endian.
    var syncWireBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: self >> 24), UInt8(truncatingIfNeeded: self >> 16),
         UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self)]
    }
}
