import Foundation

/// One device of a vault, as `GET /v1/vaults/{vaultId}/devices` lists it.
///
/// The server knows when a device registered, when it last called (to the minute) and
/// whether it was revoked; the device's name reaches it only sealed under the vault's
/// envelope key (``sealedName``), which it cannot open.
public struct SyncDeviceInfo: Sendable, Hashable, Codable {
    /// The device's id.
    public let deviceID: UUID
    /// When it registered or joined, in Unix seconds.
    public let registeredAt: Int64
    /// When it last called the server, in Unix seconds, to within a minute; `nil` before
    /// its first call since the server recorded it.
    public let lastSeenAt: Int64?
    /// Whether it was revoked.
    public let revoked: Bool
    /// The name the device gave itself, sealed by it (see ``SyncDeviceNameUpdate``).
    public let sealedName: Data?
    /// The device's certificate of the vault's current epoch, or `nil` (a device of an
    /// earlier build, or one revoked).
    public let certificate: SyncDeviceCertificate?

    /// Creates a device value.
    public init(deviceID: UUID, registeredAt: Int64, lastSeenAt: Int64?, revoked: Bool, sealedName: Data?,
                certificate: SyncDeviceCertificate? = nil) {
        self.deviceID = deviceID
        self.registeredAt = registeredAt
        self.lastSeenAt = lastSeenAt
        self.revoked = revoked
        self.sealedName = sealedName
        self.certificate = certificate
    }
}

/// The answer to `GET /v1/vaults/{vaultId}/devices`: every device of the vault, revoked
/// ones included, in the order they enrolled, and the vault's sync epoch.
public struct SyncDeviceList: Sendable, Hashable, Codable {
    /// The devices.
    public let devices: [SyncDeviceInfo]
    /// The vault's current epoch (`nil` from a server before epochs: 0).
    public let epoch: UInt32?

    /// Creates a list.
    public init(devices: [SyncDeviceInfo], epoch: UInt32? = nil) {
        self.devices = devices
        self.epoch = epoch
    }
}

/// The body of `PUT /v1/vaults/{vaultId}/devices/{deviceId}/name`: a device's own name,
/// sealed by the device under the vault's envelope key.
public struct SyncDeviceNameUpdate: Sendable, Hashable, Codable {
    /// The largest sealed name the server keeps (1 KiB).
    public static let maximumLength = 1_024

    /// The sealed name.
    public let sealedName: Data

    /// Creates a name update.
    ///
    /// - Throws: ``SyncWireError`` (field `sealedName`) when it is empty or
    ///   longer than ``maximumLength``.
    public init(sealedName: Data) throws {
        guard !sealedName.isEmpty, sealedName.count <= Self.maximumLength else {
            throw SyncWireError(field: "sealedName", reason: "must be 1 byte to 1 KiB")
        }
        self.sealedName = sealedName
    }

    private enum CodingKeys: String, CodingKey {
        case sealedName
    }

    /// Decodes and validates a name update.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(sealedName: try container.decode(Data.self, forKey: .sealedName))
    }
}
