import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// `SyncJSONWriter` writes what `JSONEncoder` with `.sortedKeys` writes, byte for byte:
/// the sealed records' JSON did not change when the writer replaced the encoder.
@Suite("Sync JSON writer: JSONEncoder's bytes")
struct SyncJSONWriterTests {
    static func encoderBytes<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(value))
    }

    /// Every ASCII byte, the escapes, and text beyond ASCII.
    static let texts: [String] = [
        "", "José García", "\"quoted\" \\ back/slash", "línea\nnueva\ttab\r\u{08}\u{0C}",
        String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self), "😀 e\u{301} ß 中文", "\u{7F}\u{2028}",
    ]

    @Test("Every kind of column value, every ASCII byte and escape, keys out of order: the same bytes as JSONEncoder")
    func rowStateMatchesEncoder() throws {
        var columns: [String: SyncColumnValue] = [
            "null": .null, "Zeta": .integer(.min), "alpha": .integer(.max), "_under": .integer(0), "neg": .integer(-1),
            "real": .real(1.5), "tenth": .real(0.1), "huge": .real(1e300), "whole": .real(2), "negZero": .real(-0.0),
            "blob": .blob(Data([0xFB, 0xFF, 0xBF, 0x00])), "empty": .blob(Data()), "ñandú": .text("clave no ASCII"),
        ]
        for (index, text) in Self.texts.enumerated() { columns["text\(index)"] = .text(text) }
        let state = SyncRowState(columns: columns)
        #expect(Array(try state.json()) == (try Self.encoderBytes(state)))
        #expect(try JSONDecoder().decode(SyncRowState.self, from: try state.json()) == state)
    }

    @Test("Two hundred random states: the same bytes as JSONEncoder")
    func randomStatesMatchEncoder() throws {
        var generator = SeededGenerator(seed: 20_261_130)
        for _ in 0..<200 {
            var columns: [String: SyncColumnValue] = [:]
            for index in 0..<Int.random(in: 0...12, using: &generator) {
                let name = "c\(Int.random(in: 0...99, using: &generator))_\(index)"
                switch Int.random(in: 0...4, using: &generator) {
                case 0: columns[name] = .null
                case 1: columns[name] = .integer(Int64.random(in: .min ... .max, using: &generator))
                case 2: columns[name] = .real(Double.random(in: -1e9...1e9, using: &generator))
                case 3:
                    let scalars = (0..<Int.random(in: 0...20, using: &generator)).compactMap { _ in
                        Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &generator))
                    }
                    columns[name] = .text(String(String.UnicodeScalarView(scalars)))
                default:
                    columns[name] = .blob(Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }))
                }
            }
            let state = SyncRowState(columns: columns)
            #expect(Array(try state.json()) == (try Self.encoderBytes(state)))
        }
    }

    @Test("A value JSON cannot hold (NaN, infinity) fails as JSONEncoder fails")
    func nonFiniteRealThrows() {
        for value in [Double.nan, .infinity, -.infinity] {
            let state = SyncRowState(columns: ["dose": .real(value)])
            #expect(throws: EncodingError.self) { try Self.encoderBytes(state) }
            #expect(throws: EncodingError.self) { try state.json() }
        }
    }

    @Test("A sealed record, with and without its optional fields: the same bytes as JSONEncoder")
    func recordMatchesEncoder() throws {
        let full = SyncRecord(table: "clinical_session", recordID: UUID(), version: 7, operation: "update",
                              timestamp: .max, deviceID: UUID(), state: Data("{\"a\":1}/+".utf8),
                              baseTimestamp: 12, baseDeviceID: UUID(), deviceSequence: 3)
        let bare = SyncRecord(table: "patient\"/\\", recordID: UUID(), version: 0, operation: "delete", timestamp: 0,
                              deviceID: UUID(), state: nil)
        for record in [full, bare] {
            #expect(record.json() == (try Self.encoderBytes(record)))
            #expect(try JSONDecoder().decode(SyncRecord.self, from: Data(record.json())) == record)
        }
    }

    @Test("The stored state of a record of every kind, as sync reads it: the same bytes as JSONEncoder")
    func storedStatesMatchEncoder() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            try await SyncFixtures.addRecord(to: devices.vaults[0], name: "Ana \"/\\")
            let states = try await devices.vaults[0].database.read { db in
                try SyncRecordStore.changeEntries(after: 0, limit: 100, db).compactMap { entry in
                    try SyncRecordStore.read(entry.table, id: entry.recordID, db)
                }
            }
            #expect(states.count >= 6)
            for state in states {
                #expect(Array(try state.json()) == (try Self.encoderBytes(state)))
            }
        }
    }
}

@Suite("Sync envelope: its wire JSON's length without encoding it")
struct SyncEnvelopeWireLengthTests {
    @Test("Epoch 0 and others, ciphertexts whose base64 holds many or no slashes, every length: the length SyncWireJSON writes")
    func lengthMatchesEncoder() throws {
        var generator = SeededGenerator(seed: 7)
        let encoder = SyncWireJSON.encoder()
        for length in [40, 41, 42, 43, 100, 1_000] {
            for epoch: UInt32 in [0, 1, 42, .max] {
                let random = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                for ciphertext in [random, Data(repeating: 0xFF, count: length), Data(repeating: 0x00, count: length)] {
                    let envelope = try SyncEnvelope(id: UUID(), recordKey: Data(repeating: 0xFF, count: 32),
                                                    ciphertext: ciphertext, epoch: epoch)
                    #expect(envelope.wireJSONLength == (try encoder.encode(envelope)).count)
                }
            }
        }
    }
}

@Suite("Sync push body: SyncWireJSON's bytes without JSONEncoder")
struct SyncPushWireJSONTests {
    @Test("Pushes of no, one and many envelopes of several epochs, with and without a signature: the bytes SyncWireJSON writes")
    func pushBodyMatchesEncoder() throws {
        var generator = SeededGenerator(seed: 11)
        func envelope(_ epoch: UInt32) throws -> SyncEnvelope {
            try SyncEnvelope(id: UUID(), recordKey: Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                             ciphertext: Data((0..<Int.random(in: 28...600, using: &generator)).map { _ in
                                 UInt8.random(in: 0...255, using: &generator)
                             }), epoch: epoch)
        }
        let envelopes = try (0..<50).map { try envelope(UInt32($0 % 3)) }
        let signer = UUID()
        let certificate = try SyncDeviceCertificate(deviceID: signer, epoch: 2, signingKey: Data(repeating: 1, count: 32),
                                                    boxKey: Data(repeating: 2, count: 32), signature: Data(repeating: 3, count: 64))
        let signature = try SyncPushSignature(signer: signer, epoch: 2, entries: Data(repeating: 0xFF, count: 48 * 50),
                                              certificate: certificate, signature: Data(repeating: 4, count: 64))
        let encoder = SyncWireJSON.encoder()
        for request in [SyncPushRequest(envelopes: []), SyncPushRequest(envelopes: [envelopes[0]]),
                        SyncPushRequest(envelopes: envelopes), SyncPushRequest(envelopes: envelopes, signature: signature)] {
            #expect(try request.wireJSON() == (try encoder.encode(request)))
        }
    }
}
