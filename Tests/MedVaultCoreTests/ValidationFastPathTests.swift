import Foundation
import Testing
@testable import MedVaultCore

/// The byte-level checks validation uses must answer exactly what the per-scalar and
/// per-character definitions answer.
@Suite("Validation fast paths")
struct ValidationFastPathTests {
    /// Every scalar of the Basic Multilingual Plane and a sample beyond, alone, between
    /// letters, and after accented text (so multi-byte neighbours precede it).
    @Test func refusedCharactersByteScanEqualsTheScalarRules() {
        var values = Array(0..<0x1_0000)
        values += [0x1_0000, 0x1_F600, 0x1_F1E6, 0xE_0001, 0x10_FFFF]
        for value in values {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            let character = String(Character(scalar))
            for text in [character, "a\(character)b", "¿Qué día?\(character)ñ",
                         "\(character)\u{200D}a", "a\u{200C}\(character)"] {
                let inLine = Self.refusedInLineByDefinition(text)
                let inNote = text.unicodeScalars.contains(where: TextSafety.isRefusedInNote)
                #expect(TextSafety.containsRefused(text, multiline: false) == inLine, "U+\(String(value, radix: 16)) line")
                #expect(TextSafety.containsRefused(text, multiline: true) == inNote, "U+\(String(value, radix: 16)) note")
            }
        }
    }

    /// The line rule on scalars: a refused scalar, or a joiner without a letter or a
    /// mark on each side.
    private static func refusedInLineByDefinition(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        func letterOrMark(_ index: Int) -> Bool {
            guard scalars.indices.contains(index) else { return false }
            switch scalars[index].properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark:
                return true
            default:
                return false
            }
        }
        return scalars.indices.contains { index in
            let scalar = scalars[index]
            if TextSafety.isRefusedInLine(scalar) { return true }
            return TextSafety.isJoiner(scalar) && !(letterOrMark(index - 1) && letterOrMark(index + 1))
        }
    }

    /// Strings bridged from NSString (which may not be stored contiguously) give the same answer.
    @Test func nonContiguousStringsGiveTheSameAnswer() {
        let bridged = NSString(string: "Ana\u{202E}Ruiz") as String
        #expect(TextSafety.containsRefused(bridged, multiline: false))
        #expect(!TextSafety.containsRefused(bridged, multiline: true))
        #expect(TextSafety.containsRefused(NSString(string: "nota\u{1B}[31m") as String, multiline: true))
        #expect(!TextSafety.containsRefused(NSString(string: "línea\nsiguiente") as String, multiline: true))
    }

    @Test func lengthCountsCharactersNotBytes() {
        #expect(!ClinicalValidation.isLonger("ñññ", than: 3))      // 6 bytes, 3 characters
        #expect(ClinicalValidation.isLonger("ññññ", than: 3))
        #expect(!ClinicalValidation.isLonger("e\u{301}e\u{301}", than: 2))  // 2 characters of 2 scalars
        #expect(!ClinicalValidation.isLonger("🇪🇸", than: 1))       // one flag, 8 bytes
        #expect(ClinicalValidation.isLonger("abcd", than: 3))
        #expect(!ClinicalValidation.isLonger("abc", than: 3))
        #expect(!ClinicalValidation.isLonger("", than: 0))
    }

    /// The URI path rule, byte by byte, against its definition on characters.
    @Test func uriPathByteRuleEqualsTheCharacterRule() {
        func byDefinition(_ path: String) -> Bool {
            !path.isEmpty && path.allSatisfy {
                $0.isASCII && !$0.isWhitespace && $0 != "\u{7F}" && $0.asciiValue.map { $0 >= 0x21 } == true
            }
        }
        var paths = (0..<0x300).compactMap { Unicode.Scalar(UInt32($0)).map { "icd/\(Character($0))/1" } }
        paths += ["icd/entity/1", "", "icd\r\nx", "e\u{301}", "a\u{3000}b", "a\u{A0}b", "x\u{2028}", "🇪🇸"]
        for path in paths {
            #expect(ICD11Snapshot.isValidURI("http://id.who.int/" + path) == byDefinition(path), "\(path.unicodeScalars.map(\.value))")
        }
    }

    // The character-based rules the byte-based ones replaced, kept here as the reference.
    private enum CharacterRules {
        static func isCodeCharacter(_ c: Character) -> Bool {
            c.isASCII && (c.isNumber || (c.isUppercase && c != "I" && c != "O"))
        }
        static func isCodeLetter(_ c: Character) -> Bool {
            c.isASCII && c.isUppercase && c != "I" && c != "O"
        }
        static func isValidCode(_ code: String) -> Bool {
            guard !code.isEmpty, code.count <= 100 else { return false }
            let parts = code.split(omittingEmptySubsequences: false) { $0 == "&" || $0 == "/" }
            return parts.allSatisfy { isStem(Array($0)) || isExtension(Array($0)) }
        }
        static func isStem(_ c: [Character]) -> Bool {
            guard c.count == 4 || ((6...7).contains(c.count) && c[4] == ".") else { return false }
            guard c[0] != "X", isCodeCharacter(c[0]), isCodeLetter(c[1]), c[2].isASCII, c[2].isNumber,
                  isCodeCharacter(c[3]) else { return false }
            return c.dropFirst(5).allSatisfy(isCodeCharacter)
        }
        static func isExtension(_ c: [Character]) -> Bool {
            (4...6).contains(c.count) && c[0] == "X" && isCodeLetter(c[1]) && c.dropFirst(2).allSatisfy(isCodeCharacter)
        }
        static func isValidRelease(_ release: String) -> Bool {
            let c = Array(release)
            guard c.count == 7, c[4] == "-",
                  c.enumerated().allSatisfy({ $0.offset == 4 || ($0.element.isASCII && $0.element.isNumber) }),
                  let month = Int(String(c[5...6])) else { return false }
            return (1...12).contains(month)
        }
    }

    /// Random strings over an alphabet of code characters and look-alikes (lower case,
    /// I and O, CR LF, combining marks, non-ASCII digits and letters), plus edge cases.
    @Test func codeAndReleaseByteRulesEqualTheCharacterRules() {
        let alphabet: [String] = ["0", "1", "6", "9", "A", "B", "X", "Z", "I", "O", "a", "x", ".", "&", "/", "-",
                                  " ", "\r", "\n", "\r\n", "\u{301}", "٣", "Ａ", "É", "\u{0}"]
        var rng = SystemRandomNumberGenerator()
        var samples = ["6A70", "6A70.1", "BA00.Z", "2A00.00", "XS5W", "6A70&XS5W", "6A70/XS5W", "6A70&", "",
                       "2024-01", "2024-12", "2024-13", "2024-00", "2024-1", "20240-1", "٢٠٢٤-٠١", "2024-0\u{301}1",
                       String(repeating: "6A70&", count: 20) + "6A70", String(repeating: "6A70&", count: 19) + "6A70"]
        for _ in 0..<30_000 {
            samples.append((0..<Int.random(in: 0...9, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined())
        }
        for _ in 0..<5_000 {
            samples.append((0..<7).map { index in
                index == 4 ? (Bool.random(using: &rng) ? "-" : alphabet.randomElement(using: &rng)!)
                    : (Bool.random(using: &rng) ? String(Int.random(in: 0...9, using: &rng)) : alphabet.randomElement(using: &rng)!)
            }.joined())
        }
        for sample in samples {
            let scalars = sample.unicodeScalars.map(\.value)
            #expect(ICD11Snapshot.isValidCode(sample) == CharacterRules.isValidCode(sample), "code \(scalars)")
            #expect(ICD11Snapshot.isValidRelease(sample) == CharacterRules.isValidRelease(sample), "release \(scalars)")
        }
    }
}
