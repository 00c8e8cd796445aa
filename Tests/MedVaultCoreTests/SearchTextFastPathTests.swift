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
}
