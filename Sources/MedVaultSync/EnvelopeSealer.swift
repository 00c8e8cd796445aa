import Foundation
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Seals ``SyncRecord``s into ``SyncEnvelope``s and opens them, with one vault's
/// ``SyncKeys``.
///
/// The associated data binds the vault id, the envelope id and the record key, so an
/// envelope cannot be replayed into another vault, renamed, or moved to another
/// record. The table and record id are bound through the record key: after opening,
/// the record key is recomputed from the sealed table and id and must match.
///
/// The plaintext is the record's JSON padded with spaces (which JSON ignores) to a
/// multiple of ``paddingBlock`` bytes, so that an envelope's length does not tell a
/// dose log from a patient.
struct EnvelopeSealer {
    static let associatedDataLabel = Array("MedVault sync envelope v1".utf8)
    /// The label of envelopes sealed in epoch 1 and later, whose associated data carries
    /// the epoch after the vault id.
    static let epochAssociatedDataLabel = Array("MedVault sync envelope v2".utf8)
    static let paddingBlock = 256

    let keys: SyncKeys

    /// Seals `record` under a new envelope id (or `id`, for a deterministic retry).
    ///
    /// - Throws: `limitExceeded` when the sealed record is longer than an envelope holds.
    func seal(_ record: SyncRecord, id: UUID = UUID()) throws -> SyncEnvelope {
        let recordKey = try keys.recordKey(table: record.table, recordID: record.recordID)
        var plaintext = record.json()
        let padded = (plaintext.count / Self.paddingBlock + 1) * Self.paddingBlock
        plaintext += [UInt8](repeating: UInt8(ascii: " "), count: padded - plaintext.count)
        let sealed = try keys.seal(plaintext, associatedData: Self.associatedData(
            vaultID: keys.vaultID, epoch: keys.epoch, envelopeID: id, recordKey: recordKey))
        guard sealed.count <= SyncEnvelope.maximumCiphertextLength else {
            throw MedVaultError(.limitExceeded, reason: "the record is larger than one sync envelope")
        }
        return try MedVaultError.fromWire {
            try SyncEnvelope(id: id, recordKey: Data(recordKey), ciphertext: Data(sealed), epoch: keys.epoch)
        }
    }

    /// Opens an envelope of this vault, sealed in this sealer's epoch (``EnvelopeOpener``
    /// picks the sealer of an envelope's epoch).
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for an envelope changed in any byte,
    ///   sealed by another vault or in another epoch, or whose record key does not belong
    ///   to its content.
    func open(_ envelope: SyncEnvelope) throws -> SyncRecord {
        let recordKey = Array(envelope.recordKey)
        guard envelope.epoch == keys.epoch else { throw SyncKeysError.otherEpoch }
        let plaintext = try keys.open(Array(envelope.ciphertext), associatedData: Self.associatedData(
            vaultID: keys.vaultID, epoch: envelope.epoch, envelopeID: envelope.id, recordKey: recordKey))
        let record: SyncRecord
        do {
            record = try SyncRecordDecoding.record(plaintext)
        } catch {
            throw MedVaultError(.corrupted, reason: "a sync envelope opened but its content is not a record")
        }
        let expected = try keys.recordKey(table: record.table, recordID: record.recordID)
        guard Self.constantTimeEqual(expected, recordKey) else {
            throw MedVaultError(.corrupted, reason: "a sync envelope's record key does not match its content")
        }
        return record
    }

    /// `MedVault sync envelope v1` ‖ vault id ‖ envelope id ‖ record key in epoch 0;
    /// `MedVault sync envelope v2` ‖ vault id ‖ epoch (u32, big-endian) ‖ envelope id ‖
    /// record key from epoch 1.
    static func associatedData(vaultID: UUID, epoch: UInt32, envelopeID: UUID, recordKey: [UInt8]) -> [UInt8] {
        var bytes = epoch == 0 ? associatedDataLabel : epochAssociatedDataLabel
        withUnsafeBytes(of: vaultID.uuid) { bytes += $0 }
        if epoch != 0 { withUnsafeBytes(of: epoch.bigEndian) { bytes += $0 } }
        withUnsafeBytes(of: envelopeID.uuid) { bytes += $0 }
        return bytes + recordKey
    }

    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// Opens envelopes of any epoch a device holds keys of.
struct EnvelopeOpener {
    let chain: SyncKeyChain

    /// Opens `envelope` with its epoch's keys.
    ///
    /// - Throws: `corrupted` as ``EnvelopeSealer/open(_:)``, and for an epoch this device
    ///   holds no key of.
    func open(_ envelope: SyncEnvelope) throws -> SyncRecord {
        try EnvelopeSealer(keys: try chain.keys(epoch: envelope.epoch)).open(envelope)
    }
}

enum SyncKeysError {
    static let otherEpoch = MedVaultError(.corrupted, reason: "a sync envelope was sealed in another epoch")
}
