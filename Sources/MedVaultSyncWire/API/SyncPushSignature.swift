import Foundation

/// A device's signature of the envelopes it pushes in one request (docs/sync.md,
/// "Signed pushes"): its own Ed25519 key (certified by the epoch's authority key) signs
/// the list of the envelopes' ids and digests, so every other device can check which
/// device made an envelope — the server keeps the signed list and cannot forge one.
///
/// An envelope's digest is SHA-256 of its epoch (u32, big-endian) ‖ id (16) ‖ record key
/// (32) ‖ ciphertext; ``entries`` packs (id ‖ digest) per envelope, 48 bytes each, in push
/// order. The signed message is ``message(vaultID:signer:epoch:entries:)``.
public struct SyncPushSignature: Sendable, Hashable, Codable {
    /// Bytes of one entry: an id and a SHA-256 digest.
    public static let entryLength = 16 + 32

    /// The pushing device.
    public let signer: UUID
    /// The epoch of the envelopes and of ``certificate``.
    public let epoch: UInt32
    /// The envelopes' ids and digests, packed.
    public let entries: Data
    /// The signer's certificate of ``epoch`` (checked by the receivers).
    public let certificate: SyncDeviceCertificate
    /// The signer's Ed25519 signature of ``message(vaultID:signer:epoch:entries:)``.
    public let signature: Data

    /// Creates a signature value.
    ///
    /// - Throws: ``SyncWireError`` for entries that are not whole (id ‖ digest) pairs (1 to
    ///   500 of them), a certificate of another device or epoch, or a signature that is
    ///   not 64 bytes.
    public init(signer: UUID, epoch: UInt32, entries: Data, certificate: SyncDeviceCertificate, signature: Data) throws {
        guard !entries.isEmpty, entries.count % Self.entryLength == 0,
              entries.count / Self.entryLength <= SyncProtocolLimits.maximumEnvelopesPerPush else {
            throw SyncWireError(field: "entries", reason: "1 to 500 entries of 48 bytes")
        }
        guard certificate.deviceID == signer, certificate.epoch == epoch else {
            throw SyncWireError(field: "certificate", reason: "must be the signer's, of the epoch")
        }
        try SyncDeviceProof.require(signature, length: SyncDeviceProof.signatureLength, field: "signature")
        self.signer = signer
        self.epoch = epoch
        self.entries = entries
        self.certificate = certificate
        self.signature = signature
    }

    /// `MedVault sync push v1` ‖ vault id ‖ signer ‖ epoch (u32) ‖ entries.
    public static func message(vaultID: UUID, signer: UUID, epoch: UInt32, entries: Data) -> Data {
        var message = Data("MedVault sync push v1".utf8)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: signer.syncWireBytes)
        message.append(contentsOf: epoch.syncWireBytes)
        message.append(entries)
        return message
    }

    /// What an envelope's digest covers: epoch (u32) ‖ id ‖ record key ‖ ciphertext (the
    /// caller hashes it with SHA-256).
    public static func digestInput(_ envelope: SyncEnvelope) -> [Data] {
        [Data(envelope.epoch.syncWireBytes), Data(envelope.id.syncWireBytes), envelope.recordKey, envelope.ciphertext]
    }

    /// The entries by envelope id.
    public func digests() -> [UUID: Data] {
        var byID: [UUID: Data] = [:]
        var offset = entries.startIndex
        while offset < entries.endIndex {
            let id = entries[offset..<(offset + 16)].withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            byID[id] = Data(entries[(offset + 16)..<(offset + Self.entryLength)])
            offset += Self.entryLength
        }
        return byID
    }

    private enum CodingKeys: String, CodingKey {
        case signer, epoch, entries, certificate, signature
    }

    /// Decodes and validates a signature value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(signer: try c.decode(UUID.self, forKey: .signer), epoch: try c.decode(UInt32.self, forKey: .epoch),
                      entries: try c.decode(Data.self, forKey: .entries),
                      certificate: try c.decode(SyncDeviceCertificate.self, forKey: .certificate),
                      signature: try c.decode(Data.self, forKey: .signature))
    }
}
