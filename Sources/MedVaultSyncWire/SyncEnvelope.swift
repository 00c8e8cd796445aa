import Foundation

/// One record change as it travels between a device and the sync server: opaque to the
/// server, which sees an id, a record key and ciphertext, never a name, a table or a key.
///
/// The device seals the record's full current state (see `docs/sync.md`, "Envelopes");
/// the server stores and orders envelopes; other devices of the vault open them.
///
/// Decoding validates the sizes: a ``recordKey`` of exactly 32 bytes and a
/// ``ciphertext`` between ``minimumCiphertextLength`` and ``maximumCiphertextLength``
/// bytes; anything else throws ``SyncWireError`` naming the field.
public struct SyncEnvelope: Sendable, Hashable, Codable {
    /// Length of a record key (an HMAC-SHA256).
    public static let recordKeyLength = 32
    /// The shortest ciphertext: a nonce and a tag around an empty message.
    public static let minimumCiphertextLength = 28
    /// The longest ciphertext (1 MiB). Records are far smaller; attachment contents
    /// travel as their own chunks.
    public static let maximumCiphertextLength = 1 << 20

    /// The envelope's id, chosen by the device that sealed it: a retried push of the
    /// same envelope is recognised by it and never stored twice.
    public let id: UUID
    /// The record's key: the same for every envelope of one record in one vault,
    /// meaningless to anyone without the vault key.
    public let recordKey: Data
    /// The sealed record: nonce ‖ ChaCha20-Poly1305 ciphertext ‖ tag.
    public let ciphertext: Data
    /// The sync epoch whose envelope key sealed it: 0 for the keys derived from the vault
    /// key (every envelope of earlier builds; absent from the JSON then), 1 and later after
    /// the vault's epoch keys (docs/sync.md, "Epochs").
    public let epoch: UInt32

    /// Creates an envelope.
    ///
    /// - Throws: ``SyncWireError`` when a size is out of range.
    public init(id: UUID, recordKey: Data, ciphertext: Data, epoch: UInt32 = 0) throws {
        guard recordKey.count == Self.recordKeyLength else {
            throw SyncWireError(field: "recordKey", reason: "a record key is 32 bytes")
        }
        guard ciphertext.count >= Self.minimumCiphertextLength else {
            throw SyncWireError(field: "ciphertext", reason: "too short to be sealed")
        }
        guard ciphertext.count <= Self.maximumCiphertextLength else {
            throw SyncWireError(field: "ciphertext", reason: "longer than 1 MiB")
        }
        self.id = id
        self.recordKey = recordKey
        self.ciphertext = ciphertext
        self.epoch = epoch
    }

    private enum CodingKeys: String, CodingKey {
        case id, recordKey, ciphertext, epoch
    }

    /// Encodes the envelope; `epoch` only when it is not 0, so an envelope of epoch 0 is
    /// the bytes earlier builds sent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(recordKey, forKey: .recordKey)
        try container.encode(ciphertext, forKey: .ciphertext)
        if epoch != 0 { try container.encode(epoch, forKey: .epoch) }
    }

    /// Decodes and validates an envelope (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(id: try container.decode(UUID.self, forKey: .id),
                      recordKey: try container.decode(Data.self, forKey: .recordKey),
                      ciphertext: try container.decode(Data.self, forKey: .ciphertext),
                      epoch: try container.decodeIfPresent(UInt32.self, forKey: .epoch) ?? 0)
    }
}
