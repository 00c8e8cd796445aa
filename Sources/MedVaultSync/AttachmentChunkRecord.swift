import Foundation
import MedVault
import MedVaultKeys

/// One 64 KiB chunk of an attachment's content as it travels in its own envelope
/// (`docs/sync.md`, "Attachments").
///
/// Its ``SyncRecord`` has the table ``table`` (a name no database table has), a record
/// id derived under the vault's record-key key from the attachment id and the chunk's
/// index (the same id after a re-seal, unlinkable to the attachment by the server), and
/// as its state the binary ``payload``: the attachment id (16 bytes) ‖ the index
/// (8 bytes, big-endian) ‖ the chunk's bytes. The state is authenticated with the rest
/// of the envelope, so the server can neither move a chunk to another attachment or
/// index nor change a byte of it.
struct AttachmentChunkRecord: Sendable, Equatable {
    /// The table name chunk records carry.
    static let table = "attachment_chunk"
    /// The bytes before the chunk's content in ``payload``.
    static let headerLength = 24

    /// The attachment this chunk belongs to.
    let attachmentID: UUID
    /// The chunk's index (0 for the first 64 KiB).
    let seq: Int64
    /// The chunk's bytes (64 KiB, the last one less).
    let data: Data

    init(attachmentID: UUID, seq: Int64, data: Data) {
        self.attachmentID = attachmentID
        self.seq = seq
        self.data = data
    }

    /// Reads a chunk record's state.
    ///
    /// - Returns: `nil` when the state is shorter than the header or its content is
    ///   empty or longer than a chunk.
    init?(payload: Data) {
        let bytes = [UInt8](payload)
        guard bytes.count > Self.headerLength,
              bytes.count - Self.headerLength <= SQLCipherAttachmentRepository.chunkByteCount else { return nil }
        attachmentID = bytes[0..<16].withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        seq = bytes[16..<24].reduce(Int64(0)) { ($0 << 8) | Int64($1) }
        guard seq >= 0 else { return nil }
        data = Data(bytes[Self.headerLength...])
    }

    /// The state a chunk record carries.
    var payload: Data {
        var bytes = Data(capacity: Self.headerLength + data.count)
        withUnsafeBytes(of: attachmentID.uuid) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: seq.bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(data)
        return bytes
    }

    /// The record id of chunk `seq` of `attachmentID` in the vault of `keys`.
    static func recordID(keys: SyncKeys, attachmentID: UUID, seq: Int64) throws -> UUID {
        try derivedUUID(keys: keys, label: "medvault.attachment_chunk.\(seq)", attachmentID)
    }

    /// The envelope id of chunk `seq` of the attachment change at local `sequence` of
    /// `device`: deterministic, so a re-seal after a kill yields the same envelopes.
    static func envelopeID(keys: SyncKeys, device: UUID, sequence: Int64, seq: Int64) throws -> UUID {
        try derivedUUID(keys: keys, label: "medvault.envelope.\(device.uuidString).chunk.\(seq)",
                        PendingChangeSealer.sequenceSeed(sequence))
    }

    /// The first 16 bytes of the record-key HMAC of (`label`, `id`), as a version-4 UUID.
    static func derivedUUID(keys: SyncKeys, label: String, _ id: UUID) throws -> UUID {
        var bytes = Array(try keys.recordKey(table: label, recordID: id).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}
