import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import Testing

/// The apply path's JSON scanner: on every input it must give what `JSONDecoder` gives —
/// the same value, or (after falling back to it) the same failure.
@Suite("Sync record decoding")
struct SyncRecordDecodingTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// States with every kind of value, and text that needs escaping.
    static let states: [SyncRowState] = [
        SyncRowState(columns: [:]),
        SyncRowState(columns: [
            "id": .blob(Data((0..<16).map { UInt8($0) })), "version": .integer(1), "min": .integer(.min),
            "max": .integer(.max), "zero": .integer(0), "negative": .integer(-42), "nothing": .null,
            "empty": .blob(Data()), "blank": .text(""),
            "quotes": .text("\"comillas\" \\ barra / slash"), "controls": .text("a\u{0}b\u{1}c\u{1F}\n\r\t\u{8}\u{C}"),
            "unicode": .text("Peña ñandú — 😀 \u{10FFFF} \u{2028}\u{2029} é"),
            "real1": .real(0.1), "real2": .real(-1e-300), "real3": .real(.greatestFiniteMagnitude),
            "real4": .real(.leastNonzeroMagnitude), "real5": .real(3), "real6": .real(-0.0), "real7": .real(123456.789e10),
        ]),
    ]

    @Test("states and records the encoders write are read by the scanner, equal to JSONDecoder's result")
    func encodedShapes() throws {
        for state in Self.states {
            let data = try Self.encoder.encode(state)
            let fast = try #require(data.withUnsafeBytes { SyncRecordDecoding.fastRowState($0.assumingMemoryBound(to: UInt8.self)) })
            #expect(fast == (try JSONDecoder().decode(SyncRowState.self, from: data)))
            #expect(fast == state)
            for base in [nil, UInt64(12) << 16] {
                let record = SyncRecord(table: "patient", recordID: UUID(), version: 7, operation: "deactivate",
                                        timestamp: .max, deviceID: UUID(), state: data, baseTimestamp: base,
                                        baseDeviceID: base.map { _ in UUID() })
                var bytes = Array(try Self.encoder.encode(record))
                bytes += Array(repeating: UInt8(ascii: " "), count: 200)   // the envelope's padding
                let read = try #require(bytes.withUnsafeBufferPointer { SyncRecordDecoding.fastRecord($0) })
                #expect(read == record)
                #expect(read == (try JSONDecoder().decode(SyncRecord.self, from: Data(bytes))))
            }
        }
        let deletion = SyncRecord(table: "clinical_session", recordID: UUID(), version: 2, operation: "delete",
                                  timestamp: 5, deviceID: UUID(), state: nil)
        let bytes = Array(try Self.encoder.encode(deletion))
        #expect(bytes.withUnsafeBufferPointer { SyncRecordDecoding.fastRecord($0) } == deletion)
    }

    /// Hand-written JSON: escapes, whitespace, lowercase ids, explicit nulls, and shapes
    /// the scanner must leave to JSONDecoder. Each is decoded both ways.
    static let handWrittenStates: [String] = [
        #"{"columns":{"a":{"t":"\u00e9\u00F1 \ud83d\ude00 \/ \b\f"}}}"#,
        " \n{ \"columns\" : { \"a\" : null , \"b\" : { \"i\" : -0 } } } \t",
        #"{"columns":{"a":{"r":1}}}"#,
        #"{"columns":{"a":{"r":-1.5E+3}}}"#,
        #"{"columns":{"a":{"i":1.0}}}"#,                  // an integer with a fraction
        #"{"columns":{"a":{"i":9223372036854775808}}}"#,  // out of range
        #"{"columns":{"a":{"i":1,"x":2}}}"#,              // an unknown key
        #"{"columns":{"a":{"i":1},"a":{"i":2}}}"#,        // a repeated column
        #"{"columns":{"a":{"i":1,"t":"x"}}}"#,            // two kinds
        #"{"columns":{"a":{}}}"#,                          // no kind
        #"{"columns":{"a":{"t":"\ud83d"}}}"#,              // a lone surrogate
        #"{"columns":{"a":{"t":"\x"}}}"#,                  // a bad escape
        #"{"columns":{"a":{"b":"not base64!"}}}"#,
        #"{"columns":{"a":{"i":01}}}"#,                    // a leading zero
        #"{"columns":[]}"#,
        #"{"columns":{"a":{"i":1}}} trailing"#,
        #"{"other":1,"columns":{}}"#,
        #"{"columns":{"a":{"t":"unterminated}}}"#,
        "{\"columns\":{\"a\":{\"t\":\"raw\ncontrol\"}}}",
        "",
    ]

    @Test("hand-written JSON, well-formed or not: the scanner and JSONDecoder agree (value or failure)")
    func handWritten() throws {
        for text in Self.handWrittenStates {
            let data = Data(text.utf8)
            let expected = try? JSONDecoder().decode(SyncRowState.self, from: data)
            let actual = try? SyncRecordDecoding.rowState(data)
            #expect(actual == expected, "\(text)")
        }
        // Invalid UTF-8 inside a string.
        var bytes = Array(#"{"columns":{"a":{"t":"x"}}}"#.utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "x"))!] = 0xFF
        #expect((try? SyncRecordDecoding.rowState(Data(bytes))) == (try? JSONDecoder().decode(SyncRowState.self, from: Data(bytes))))

        let id = UUID()
        let records = [
            #"{"deviceID":"\#(id.uuidString.lowercased())","operation":"insert","recordID":"\#(id.uuidString)","table":"patient","timestamp":1,"version":1,"state":null,"baseTimestamp":null}"#,
            #"{"deviceID":"\#(id.uuidString)","operation":"insert","recordID":"\#(id.uuidString)","table":"patient","timestamp":-1,"version":1}"#,
            #"{"deviceID":"\#(id.uuidString)","operation":"insert","recordID":"not-a-uuid","table":"patient","timestamp":1,"version":1}"#,
            #"{"deviceID":"\#(id.uuidString)","operation":"insert","table":"patient","timestamp":1,"version":1}"#,
            #"{"deviceID":"\#(id.uuidString)","operation":"insert","recordID":"\#(id.uuidString)","table":"patient","timestamp":1,"version":1,"future":true}"#,
        ]
        for text in records {
            let expected = try? JSONDecoder().decode(SyncRecord.self, from: Data(text.utf8))
            let actual = try? SyncRecordDecoding.record(Array(text.utf8))
            #expect(actual == expected, "\(text)")
        }
        // The first is read by the scanner itself (nulls for the optional fields).
        #expect(Array(records[0].utf8).withUnsafeBufferPointer { SyncRecordDecoding.fastRecord($0) } != nil)
    }
}
