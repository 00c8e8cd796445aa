import Foundation
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Envelopes: what a device seals for the server, and every way a changed, replayed or
/// forged envelope is refused.
@Suite("Sync envelopes")
struct EnvelopeSealerTests {
    static func record(state: String = "{\"lastName\":\"\(ClinicalFixtures.marker)\"}") -> SyncRecord {
        record(state: Data(state.utf8))
    }

    static func record(state: Data) -> SyncRecord {
        SyncRecord(table: "patient", recordID: UUID(), version: 3, operation: "update",
                   timestamp: 1_790_000_000_000 << 16 | 7, deviceID: UUID(), state: state)
    }

    static func sealer() throws -> EnvelopeSealer {
        EnvelopeSealer(keys: try SyncKeys(vaultKey: SecureBytes.random(count: 32), vaultID: UUID()))
    }

    @Test("a sealed record opens to itself; the wire form shows neither the record nor its id")
    func roundTrip() throws {
        let sealer = try Self.sealer()
        let record = Self.record()
        let envelope = try sealer.seal(record)
        #expect(try sealer.open(envelope) == record)
        #expect(envelope.recordKey == Data(try sealer.keys.recordKey(table: "patient", recordID: record.recordID)))

        let wire = try JSONEncoder().encode(envelope)
        let decoded = try JSONDecoder().decode(SyncEnvelope.self, from: wire)
        #expect(decoded == envelope)
        #expect(try sealer.open(decoded) == record)
        for needle in [Data(ClinicalFixtures.marker.utf8), Data(record.recordID.uuidString.utf8),
                       withUnsafeBytes(of: record.recordID.uuid) { Data($0) }, Data("patient".utf8)] {
            #expect(wire.range(of: needle) == nil)
            #expect(envelope.ciphertext.range(of: needle) == nil)
        }
    }

    @Test("ciphertext lengths come in 256-byte steps: records of different sizes look alike")
    func padding() throws {
        let sealer = try Self.sealer()
        let short = try sealer.seal(Self.record(state: "{}"))
        let longer = try sealer.seal(Self.record(state: "{\"notes\":\"" + String(repeating: "x", count: 12) + "\"}"))
        let overhead = SyncKeys.sealingOverhead
        #expect(short.ciphertext.count == longer.ciphertext.count)
        #expect((short.ciphertext.count - overhead) % EnvelopeSealer.paddingBlock == 0)
        let large = try sealer.seal(Self.record(state: Data(repeating: UInt8(ascii: "y"), count: 600)))
        #expect((large.ciphertext.count - overhead) % EnvelopeSealer.paddingBlock == 0)
        #expect(large.ciphertext.count > short.ciphertext.count)
        #expect(try sealer.open(large).state == Data(repeating: UInt8(ascii: "y"), count: 600))
    }

    @Test("a changed byte, a renamed envelope, a moved record key or another vault's keys are refused")
    func tampering() async throws {
        let sealer = try Self.sealer()
        let envelope = try sealer.seal(Self.record())
        let other = try sealer.seal(Self.record())
        var flipped = envelope.ciphertext
        flipped[flipped.count / 2] ^= 0x80
        let changed = try SyncEnvelope(id: envelope.id, recordKey: envelope.recordKey, ciphertext: flipped)
        await expectMedVaultError(.corrupted) { try sealer.open(changed) }
        let renamed = try SyncEnvelope(id: UUID(), recordKey: envelope.recordKey, ciphertext: envelope.ciphertext)
        await expectMedVaultError(.corrupted) { try sealer.open(renamed) }
        let moved = try SyncEnvelope(id: envelope.id, recordKey: other.recordKey, ciphertext: envelope.ciphertext)
        await expectMedVaultError(.corrupted) { try sealer.open(moved) }
        await expectMedVaultError(.corrupted) { try Self.sealer().open(envelope) }
    }

    @Test("a device holding the keys cannot file one record's state under another record's key")
    func forgedRecordKey() async throws {
        let sealer = try Self.sealer()
        let record = Self.record()
        let victimKey = try sealer.keys.recordKey(table: "patient", recordID: UUID())
        let id = UUID()
        // Sealed correctly, but under the associated data of another record's key.
        let plaintext = try JSONEncoder().encode(record)
        let sealed = try sealer.keys.seal(Array(plaintext), associatedData: EnvelopeSealer.associatedData(vaultID: sealer.keys.vaultID, epoch: 0, envelopeID: id,
                                                                                                   recordKey: victimKey))
        let forged = try SyncEnvelope(id: id, recordKey: Data(victimKey), ciphertext: Data(sealed))
        let error = await expectMedVaultError(.corrupted) { try sealer.open(forged) }
        #expect(error?.reason.contains("record key") == true)

        // Sealed content that is not a record is refused too.
        let junk = try sealer.keys.seal(Array("not json".utf8), associatedData: EnvelopeSealer.associatedData(
            vaultID: sealer.keys.vaultID, epoch: 0, envelopeID: id, recordKey: victimKey))
        await expectMedVaultError(.corrupted) {
            try sealer.open(try SyncEnvelope(id: id, recordKey: Data(victimKey), ciphertext: Data(junk)))
        }
    }

    @Test("envelope sizes are validated on creation and on decoding, naming the field")
    func validation() throws {
        let ciphertext = Data(repeating: 1, count: 40)
        #expect {
            try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 0, count: 31), ciphertext: ciphertext)
        } throws: { ($0 as? SyncWireError) == SyncWireError(field: "recordKey", reason: "a record key is 32 bytes") }
        #expect {
            try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 0, count: 32), ciphertext: Data(count: 27))
        } throws: { ($0 as? SyncWireError) == SyncWireError(field: "ciphertext", reason: "too short to be sealed") }
        #expect {
            try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 0, count: 32),
                             ciphertext: Data(count: SyncEnvelope.maximumCiphertextLength + 1))
        } throws: { ($0 as? SyncWireError) == SyncWireError(field: "ciphertext", reason: "longer than 1 MiB") }
        #expect(throws: Never.self) {
            try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 0, count: 32),
                             ciphertext: Data(count: SyncEnvelope.maximumCiphertextLength))
        }
        let json = #"{"id":"\#(UUID().uuidString)","recordKey":"AAAA","ciphertext":"\#(ciphertext.base64EncodedString())"}"#
        #expect {
            try JSONDecoder().decode(SyncEnvelope.self, from: Data(json.utf8))
        } throws: { ($0 as? SyncWireError) == SyncWireError(field: "recordKey", reason: "a record key is 32 bytes") }
    }
}
