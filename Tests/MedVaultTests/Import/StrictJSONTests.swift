import Foundation
import MedVaultCore
import Testing

/// `StrictJSON` reads keys as `JSONDecoder` does (escapes decoded) and refuses what it
/// cannot read, strings without escapes included (the fast path of `JSONShape`).
@Suite("Strict JSON: repeated keys as a decoder sees them")
struct StrictJSONTests {
    static func data(_ bytes: [UInt8]) -> Data { Data(bytes) }

    @Test("A key repeated through escapes (\\u0061, a surrogate pair, \\/) is found; distinct keys pass")
    func escapedKeys() {
        #expect(StrictJSON.repeatedKey(in: Data(#"{"a":1,"\u0061":2}"#.utf8)) == "a")
        #expect(StrictJSON.repeatedKey(in: Data(#"{"😀":1,"\ud83d\ude00":2}"#.utf8)) == "😀")
        #expect(StrictJSON.repeatedKey(in: Data(#"{"a/b":1,"a\/b":2}"#.utf8)) == "a/b")
        #expect(StrictJSON.repeatedKey(in: Data(#"{"x":{"k":"v\"","k":"w"}}"#.utf8)) == "x.k")
        #expect(StrictJSON.hasUniqueKeys(Data(#"{"a":"\u0061","b":"plain","c":["é","\n"]}"#.utf8)))
    }

    @Test("Text a decoder refuses is refused: invalid UTF-8 in a plain string or before an escape, a lone surrogate, an unknown escape, an unterminated string")
    func unreadableText() {
        let invalid: [[UInt8]] = [
            Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array(#"{"a":""#.utf8) + [0xFF] + Array(#"\n"}"#.utf8),
            Array(#"{""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"":1}"#.utf8),
            Array(#"{"a":"\ud83d"}"#.utf8),
            Array(#"{"a":"\x"}"#.utf8),
            Array(#"{"a":"abc}"#.utf8),
        ]
        for bytes in invalid {
            #expect(!StrictJSON.hasUniqueKeys(Self.data(bytes)))
            #expect((try? JSONSerialization.jsonObject(with: Self.data(bytes))) == nil)
        }
    }
}
