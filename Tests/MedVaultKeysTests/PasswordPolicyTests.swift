import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("PasswordPolicy: a length and a documented strength estimate for new passwords")
struct PasswordPolicyTests {
    static let tooShort = MedVaultError(.validation, field: "password", reason: "must have at least 12 characters")

    @Test("Passphrases and mixed passwords pass the standard policy", arguments: [
        "correct horse battery staple", "contraseña segura 2024", "Tr0ub4dor&3-xyzw", "paciente ñandú pingüino",
    ])
    func accepted(_ text: String) throws {
        #expect(throws: Never.self) { try PasswordPolicy.standard.check(try Password(text)) }
    }

    @Test("Short ones fail on length; long predictable ones (repeats, runs, one kind) on strength", arguments: [
        ("probe", true), ("Password1!", true), ("aaaaaaaaaaaaaaaaaaaa", false), ("abcdefghijklmnopqrst", false),
        ("123456789012345678", false), ("qwertyqwertyqwerty", false), ("Password123!", false),
        (String(repeating: "a", count: 200), false), (String(repeating: "qwerty", count: 20), false),
    ])
    func refused(_ text: String, _ short: Bool) throws {
        do {
            try PasswordPolicy.standard.check(try Password(text))
            Issue.record("accepted \(text)")
        } catch let error as MedVaultError {
            #expect(error.code == .validation)
            #expect(error.field == "password")
            if short { #expect(error == Self.tooShort) } else { #expect(error.reason.hasPrefix("is too predictable")) }
            #expect(!error.description.contains(text))
        }
    }

    @Test("The estimate: log2 of the alphabet per new character, nothing for a repeat or a run; non-ASCII adds an alphabet of 26")
    func estimate() throws {
        // 12 distinct lower-case letters: 12 × log2(26).
        #expect(abs(try PasswordPolicy.estimatedBits(of: Password("qwmzxkvplhjd")) - 12 * log2(26)) < 1e-9)
        // A run and a repeat count nothing: "ab" + "a" → log2(26).
        #expect(abs(try PasswordPolicy.estimatedBits(of: Password("aba")) - log2(26)) < 1e-9)
        // Lower case, a digit and a symbol widen the alphabet to 26 + 10 + 33.
        #expect(abs(try PasswordPolicy.estimatedBits(of: Password("q7%")) - 3 * log2(69)) < 1e-9)
        // ñ is "other" (26 more): the same letters in NFC or decomposed give one estimate.
        let composed = try PasswordPolicy.estimatedBits(of: Password("ñandú"))
        #expect(composed == (try PasswordPolicy.estimatedBits(of: Password("n\u{303}andu\u{301}"))))
    }

    @Test("A policy is configurable; a length below 1 and a negative strength are clamped")
    func configurable() throws {
        let lenient = PasswordPolicy(minimumLength: 0, minimumEstimatedBits: -5)
        #expect(lenient.minimumLength == 1 && lenient.minimumEstimatedBits == 0)
        #expect(throws: Never.self) { try lenient.check(try Password("x")) }
        let strict = PasswordPolicy(minimumLength: 30, minimumEstimatedBits: 60)
        #expect(throws: MedVaultError(.validation, field: "password", reason: "must have at least 30 characters")) {
            try strict.check(try Password("correct horse battery staple"))
        }
    }
}
