import Foundation

/// The body of `POST /v1/pairings`: a new device asks to be approved. It posts the key an
/// enrolled device will seal the vault's sync secret to, authenticated under the pairing
/// code (which only the two screens hold), at an id derived from the code
/// (docs/sync.md, "Approving a new device").
public struct SyncPairingRequest: Sendable, Hashable, Codable {
    /// The pairing's id (derived from the code).
    public let pairingID: UUID
    /// The new device's X25519 public key.
    public let boxKey: Data
    /// HMAC-SHA256, under the code's key, of ``message(boxKey:)``.
    public let mac: Data

    /// Creates a request.
    ///
    /// - Throws: ``SyncWireError`` naming the field whose size is wrong.
    public init(pairingID: UUID, boxKey: Data, mac: Data) throws {
        try SyncDeviceProof.require(boxKey, length: SyncDeviceCertificate.keyLength, field: "boxKey")
        try SyncDeviceProof.require(mac, length: 32, field: "mac")
        self.pairingID = pairingID
        self.boxKey = boxKey
        self.mac = mac
    }

    /// `MedVault sync pairing request v1` ‖ box key.
    public static func message(boxKey: Data) -> Data {
        Data("MedVault sync pairing request v1".utf8) + boxKey
    }

    private enum CodingKeys: String, CodingKey {
        case pairingID = "pairingId", boxKey, mac
    }

    /// Decodes and validates a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(pairingID: try c.decode(UUID.self, forKey: .pairingID), boxKey: try c.decode(Data.self, forKey: .boxKey),
                      mac: try c.decode(Data.self, forKey: .mac))
    }
}

/// An enrolled device's answer to a pairing (`PUT /v1/vaults/{vaultId}/pairings/{id}/approval`):
/// the vault id and sync secret sealed to the new device's key, or a refusal (no
/// ``sealed``), authenticated under the pairing code.
public struct SyncPairingApproval: Sendable, Hashable, Codable {
    /// The largest sealed answer.
    public static let maximumLength = 1_024

    /// The sealed answer; `nil` when the user refused (the codes did not match).
    public let sealed: Data?
    /// HMAC-SHA256, under the code's key, of ``message(boxKey:sealed:)``.
    public let mac: Data

    /// Creates an answer.
    ///
    /// - Throws: ``SyncWireError`` for an empty or oversized `sealed` or a MAC that is not 32 bytes.
    public init(sealed: Data?, mac: Data) throws {
        if let sealed {
            guard !sealed.isEmpty, sealed.count <= Self.maximumLength else {
                throw SyncWireError(field: "sealed", reason: "must be 1 byte to 1 KiB")
            }
        }
        try SyncDeviceProof.require(mac, length: 32, field: "mac")
        self.sealed = sealed
        self.mac = mac
    }

    /// `MedVault sync pairing approval v1` ‖ box key ‖ sealed, or `MedVault sync pairing
    /// refusal v1` ‖ box key.
    public static func message(boxKey: Data, sealed: Data?) -> Data {
        guard let sealed else { return Data("MedVault sync pairing refusal v1".utf8) + boxKey }
        return Data("MedVault sync pairing approval v1".utf8) + boxKey + sealed
    }

    private enum CodingKeys: String, CodingKey {
        case sealed, mac
    }

    /// Decodes and validates an answer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(sealed: try c.decodeIfPresent(Data.self, forKey: .sealed), mac: try c.decode(Data.self, forKey: .mac))
    }
}

/// The answer to `GET /v1/pairings/{id}`: the new device's request and, once given, the
/// enrolled device's answer.
public struct SyncPairingState: Sendable, Hashable, Codable {
    /// The request as posted.
    public let request: SyncPairingRequest
    /// The answer, or `nil` while none was given.
    public let approval: SyncPairingApproval?

    /// Creates a state.
    public init(request: SyncPairingRequest, approval: SyncPairingApproval?) {
        self.request = request
        self.approval = approval
    }
}
