import Foundation
import Testing
@testable import MedVaultCore

/// The table-driven fast path of `SearchText.tokens(of:)` must give exactly what
/// Foundation's folding gives, for every text it accepts.
@Suite("SearchText fast path")
struct SearchTextFastPathTests {
    @Test func everyLatinScalarAloneAndBetweenLetters() {
        for value in 0..<SearchText.latinLimit {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(Character(scalar)), "a\(Character(scalar))b", "\(Character(scalar))\(Character(scalar))z"] {
                #expect(SearchText.latinTokens(of: text) == SearchText.foundationTokens(of: text),
                        "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test func randomLatinTexts() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...24, using: &rng)
            let text = String(String.UnicodeScalarView((0..<length).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0..<SearchText.latinLimit, using: &rng))
            }))
            #expect(SearchText.latinTokens(of: text) == SearchText.foundationTokens(of: text))
        }
    }

    @Test func spanishNamesAndOtherScripts() {
        #expect(SearchText.tokens(of: "José García-Núñez") == ["jose", "garcia", "nunez"])
        #expect(SearchText.tokens(of: "MARÍA JOSÉ Ibáñez Peña") == ["maria", "jose", "ibanez", "pena"])
        // Outside the table: the Foundation path answers.
        #expect(SearchText.latinTokens(of: "Jose\u{301}") == nil)
        #expect(SearchText.tokens(of: "Jose\u{301}") == SearchText.foundationTokens(of: "Jose\u{301}"))
        #expect(SearchText.latinTokens(of: "Σοφία") == nil)
        #expect(SearchText.tokens(of: "Σοφία Παπαδοπούλου") == ["σοφια", "παπαδοπουλου"])
    }

    /// The tokens `forEachToken(of:)` hands out.
    static func tokenBytes(of text: String) -> [[UInt8]] {
        var tokens: [[UInt8]] = []
        SearchText.forEachToken(of: text) { tokens.append(Array($0)) }
        return tokens
    }

    /// The reference tokens, byte for byte.
    static func referenceBytes(of text: String) -> [[UInt8]] {
        SearchText.foundationTokens(of: text).map { Array($0.utf8) }
    }

    @Test("The byte reader stops at U+0250, the first scalar outside the table, and at every longer encoding, before calling back")
    func latinBoundaryInUTF8() {
        // U+024F is C9 8F, the last two-byte form inside the table; U+0250 is C9 90.
        #expect(SearchText.latinTokens(of: "a\u{24F}b") == SearchText.foundationTokens(of: "a\u{24F}b"))
        for outside in ["\u{250}", "\u{2FF}", "\u{7FF}", "\u{800}", "\u{301}", "\u{FFFD}", "😀", "\u{10FFFF}"] {
            var calls = 0
            // The outside scalar comes last: nothing may be handed out before it is seen.
            #expect(SearchText.forEachLatinToken(of: "uno dos \(outside)") { _ in calls += 1 } == false, "\(outside.unicodeScalars.map(\.value))")
            #expect(calls == 0)
            #expect(Self.tokenBytes(of: "uno dos \(outside)") == Self.referenceBytes(of: "uno dos \(outside)"))
        }
    }

    @Test("forEachToken hands out exactly the tokens of tokens(of:), on Latin text and on text that needs Foundation's folding")
    func forEachTokenMatchesTokens() {
        var rng = SystemRandomNumberGenerator()
        let others: [UInt32] = [0x250, 0x301, 0x3A3, 0x3C3, 0x410, 0x1E9E, 0xFB01, 0x1F600]
        for round in 0..<2_000 {
            let length = Int.random(in: 0...40, using: &rng)
            let text = String(String.UnicodeScalarView((0..<length).compactMap { _ in
                // Every tenth text also draws scalars outside the table.
                round % 10 == 0 && Bool.random(using: &rng) ? Unicode.Scalar(others.randomElement(using: &rng)!)
                    : Unicode.Scalar(UInt32.random(in: 0..<SearchText.latinLimit, using: &rng))
            }))
            #expect(Self.tokenBytes(of: text) == Self.referenceBytes(of: text), "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test("Text that is not native UTF-8 storage (a substring, a bridged string) is read the same way")
    func substringsAndBridgedStrings() {
        let whole = "«Núñez» y MARÍA-josé 42"
        let part = String(whole.dropFirst(1).dropLast(3))
        #expect(Self.tokenBytes(of: part) == Self.referenceBytes(of: part))
        let bridged = String(NSString(string: whole))
        #expect(Self.tokenBytes(of: bridged) == Self.referenceBytes(of: whole))
        #expect(SearchText.tokens(of: bridged) == ["nunez", "y", "maria", "jose", "42"])
    }
}
