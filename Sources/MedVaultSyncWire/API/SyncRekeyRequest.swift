import Foundation

/// A new sync epoch's keys for one device: sealed to the device's box key
/// (`crypto_box_seal`) by the device that starts the epoch, and signed by that device's
/// own key, so the server can neither read nor forge it (docs/sync.md, "Epochs").
public struct SyncRekeyPackage: Sendable, Hashable, Codable {
    /// The largest sealed package.
    public static let maximumLength = 1_024

    /// The device it is for.
    public let deviceID: UUID
    /// The sealed keys.
    public let sealed: Data
    /// The starting device's Ed25519 signature of ``message(vaultID:epoch:deviceID:sealed:)``.
    public let signature: Data

    /// Creates a package.
    ///
    /// - Throws: ``SyncWireError`` for an empty or oversized `sealed`, or a signature that is not 64 bytes.
    public init(deviceID: UUID, sealed: Data, signature: Data) throws {
        guard !sealed.isEmpty, sealed.count <= Self.maximumLength else {
            throw SyncWireError(field: "sealed", reason: "must be 1 byte to 1 KiB")
        }
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        self.deviceID = deviceID
        self.sealed = sealed
        self.signature = signature
    }

    /// `MedVault sync epoch package v1` ‖ vault id ‖ epoch (u32) ‖ device id ‖ sealed.
    public static func message(vaultID: UUID, epoch: UInt32, deviceID: UUID, sealed: Data) -> Data {
        var message = Data("MedVault sync epoch package v1".utf8)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: epoch.syncWireBytes)
        message.append(contentsOf: deviceID.syncWireBytes)
        message.append(sealed)
        return message
    }

    private enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId", sealed, signature
    }

    /// Decodes and validates a package.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(deviceID: try c.decode(UUID.self, forKey: .deviceID),
                      sealed: try c.decode(Data.self, forKey: .sealed),
                      signature: try c.decode(Data.self, forKey: .signature))
    }
}

/// The body of `POST /v1/vaults/{vaultId}/epochs`: a device starts the vault's next sync
/// epoch, revoking devices in the same step.
///
/// The server applies it in one transaction, or not at all: the revoked devices' tokens
/// stop, ``verificationKey`` replaces the vault's (so a proof made with the previous
/// epoch's key no longer joins), every remaining device's certificate is replaced by the
/// new epoch's, each gets its package, and the keyring and the sealed epoch keys (both
/// under the new sync secret) are replaced. It checks ``authorization`` against the
/// vault's current key: a holder of a device token alone cannot start an epoch.
public struct SyncRekeyRequest: Sendable, Hashable, Codable {
    /// The most devices one request names.
    public static let maximumDevices = 256
    /// The largest sealed epoch keys accepted (256 KiB).
    public static let maximumEpochKeysLength = 256 * 1024

    /// The new epoch: the vault's current one + 1.
    public let epoch: UInt32
    /// The new epoch's authority public key (Ed25519).
    public let verificationKey: Data
    /// The devices revoked in this step.
    public let revoked: [UUID]
    /// The new epoch's certificate of every remaining device, the starting one included.
    public let certificates: [SyncDeviceCertificate]
    /// The new epoch's keys for every remaining device, the starting one included (which
    /// adopts its own if it crashed before keeping them).
    public let packages: [SyncRekeyPackage]
    /// The starting device's certificate of the current epoch: the receivers check the
    /// packages' signatures with its signing key.
    public let signerCertificate: SyncDeviceCertificate
    /// The keyring sealed under the new sync secret (compare-and-swap as ``SyncKeyringUpdate``).
    public let keyring: SyncKeyringUpdate
    /// Every epoch's key sealed under the vault key and the new sync secret (`SealedEpochKeys`).
    public let epochKeys: Data
    /// The current epoch's authority signature of
    /// ``authorizationMessage(vaultID:epoch:verificationKey:revoked:signer:)``.
    public let authorization: Data

    /// Creates a request.
    ///
    /// - Throws: ``SyncWireError`` naming the field out of range.
    public init(epoch: UInt32, verificationKey: Data, revoked: [UUID], certificates: [SyncDeviceCertificate],
                packages: [SyncRekeyPackage], signerCertificate: SyncDeviceCertificate, keyring: SyncKeyringUpdate,
                epochKeys: Data, authorization: Data) throws {
        guard epoch > 0 else { throw SyncWireError(field: "epoch", reason: "must be at least 1") }
        try SyncDeviceProof.require(verificationKey, length: SyncDeviceProof.verificationKeyLength, field: "verificationKey")
        try SyncDeviceProof.require(authorization, length: SyncDeviceProof.signatureLength, field: "authorization")
        guard revoked.count <= Self.maximumDevices, Set(revoked).count == revoked.count else {
            throw SyncWireError(field: "revoked", reason: "at most 256 distinct devices")
        }
        guard !certificates.isEmpty, certificates.count <= Self.maximumDevices,
              Set(certificates.map(\.deviceID)).count == certificates.count else {
            throw SyncWireError(field: "certificates", reason: "1 to 256, one per device")
        }
        guard packages.count <= Self.maximumDevices, Set(packages.map(\.deviceID)).count == packages.count else {
            throw SyncWireError(field: "packages", reason: "at most 256, one per device")
        }
        guard !epochKeys.isEmpty, epochKeys.count <= Self.maximumEpochKeysLength else {
            throw SyncWireError(field: "epochKeys", reason: "must be 1 byte to 256 KiB")
        }
        self.epoch = epoch
        self.verificationKey = verificationKey
        self.revoked = revoked
        self.certificates = certificates
        self.packages = packages
        self.signerCertificate = signerCertificate
        self.keyring = keyring
        self.epochKeys = epochKeys
        self.authorization = authorization
    }

    /// `MedVault sync epoch v1` ‖ vault id ‖ epoch (u32) ‖ verification key (32) ‖ signer
    /// id ‖ number of revoked devices (u32) ‖ their ids in ascending byte order.
    public static func authorizationMessage(vaultID: UUID, epoch: UInt32, verificationKey: Data,
                                            revoked: [UUID], signer: UUID) -> Data {
        var message = Data("MedVault sync epoch v1".utf8)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: epoch.syncWireBytes)
        message.append(verificationKey)
        message.append(contentsOf: signer.syncWireBytes)
        message.append(contentsOf: UInt32(truncatingIfNeeded: revoked.count).syncWireBytes)
        for id in revoked.map(\.syncWireBytes).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            message.append(contentsOf: id)
        }
        return message
    }

    private enum CodingKeys: String, CodingKey {
        case epoch, verificationKey, revoked, certificates, packages, signerCertificate, keyring, epochKeys, authorization
    }

    /// Decodes and validates a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(epoch: try c.decode(UInt32.self, forKey: .epoch),
                      verificationKey: try c.decode(Data.self, forKey: .verificationKey),
                      revoked: try c.decode([UUID].self, forKey: .revoked),
                      certificates: try c.decode([SyncDeviceCertificate].self, forKey: .certificates),
                      packages: try c.decode([SyncRekeyPackage].self, forKey: .packages),
                      signerCertificate: try c.decode(SyncDeviceCertificate.self, forKey: .signerCertificate),
                      keyring: try c.decode(SyncKeyringUpdate.self, forKey: .keyring),
                      epochKeys: try c.decode(Data.self, forKey: .epochKeys),
                      authorization: try c.decode(Data.self, forKey: .authorization))
    }
}

/// The answer to `GET /v1/vaults/{vaultId}/epochs/{epoch}/package`: this device's keys of
/// an epoch another device started, and that device's certificate of the epoch before.
public struct SyncEpochPackage: Sendable, Hashable, Codable {
    /// The epoch.
    public let epoch: UInt32
    /// The package sealed to this device.
    public let package: SyncRekeyPackage
    /// The starting device's certificate of `epoch − 1`.
    public let signerCertificate: SyncDeviceCertificate

    /// Creates an answer.
    public init(epoch: UInt32, package: SyncRekeyPackage, signerCertificate: SyncDeviceCertificate) {
        self.epoch = epoch
        self.package = package
        self.signerCertificate = signerCertificate
    }
}

/// The answer to `GET /v1/vaults/{vaultId}/recovery`, asked without a token by a device
/// that joins with the recovery kit: the keyring sealed under the sync secret and the
/// epoch keys sealed under the vault key and the sync secret. Neither opens without the
/// kit, so the server gives them to anyone who names the vault.
public struct SyncRecoveryBundle: Sendable, Hashable, Codable {
    /// The keyring.
    public let keyring: SyncKeyringBlob
    /// The vault's current epoch.
    public let epoch: UInt32
    /// The sealed epoch keys; `nil` at epoch 0.
    public let epochKeys: Data?

    /// Creates a bundle.
    public init(keyring: SyncKeyringBlob, epoch: UInt32, epochKeys: Data?) {
        self.keyring = keyring
        self.epoch = epoch
        self.epochKeys = epochKeys
    }
}
