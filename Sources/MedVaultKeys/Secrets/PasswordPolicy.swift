import Foundation
import MedVaultCore

/// What a new password must be: checked by `Vault.create`, `changePassword` and
/// `resetPassword` (a password that only opens a vault is never judged).
///
/// A vault's password guards its keyring file on the device: a thief of the device's
/// files can try guesses offline at Argon2id's cost (the sync server's copy is sealed
/// under the sync secret and cannot be tried). So a new password needs a minimum length
/// and an estimated strength.
///
/// **The estimate** is deliberately simple and documented, so an app can explain it: each
/// character adds log₂ of the alphabet the password draws from (lower-case letters 26,
/// upper-case 26, digits 10, ASCII symbols and space 33, any other character — accented
/// letters, other scripts — 26 more), except a character that continues a run (`abc`,
/// `321`) or already appeared earlier: those add nothing. It knows no dictionary: a passphrase of
/// common words is rated as if its letters were random, so the default asks for more bits
/// than the entropy a person would credit it with. It reads the normalised bytes in place
/// (no `String` is made of the password).
///
/// ```swift
/// var options = Vault.Options()
/// options.passwordPolicy = PasswordPolicy(minimumLength: 14, minimumEstimatedBits: 70)
/// ```
public struct PasswordPolicy: Sendable, Hashable {
    /// The fewest characters (Unicode scalars after NFC normalisation). At least 1.
    public var minimumLength: Int
    /// The lowest estimated strength in bits (see the type's discussion). At least 0.
    public var minimumEstimatedBits: Double

    /// MedVault's default: 12 characters and 60 estimated bits (for example four random
    /// common words, or twelve characters mixing cases, digits and symbols).
    public static let standard = PasswordPolicy(minimumLength: 12, minimumEstimatedBits: 60)

    /// Creates a policy; a length below 1 counts as 1, a negative strength as 0.
    public init(minimumLength: Int, minimumEstimatedBits: Double) {
        self.minimumLength = max(minimumLength, 1)
        self.minimumEstimatedBits = max(minimumEstimatedBits, 0)
    }

    /// Throws unless `password` meets the policy. The error names the rule, never the
    /// password or its estimate.
    ///
    /// - Throws: `MedVaultError.Code.validation` on field `"password"`: "must have at least
    ///   N characters", or "is too predictable: …".
    public func check(_ password: Password) throws {
        let (length, bits) = try Self.measure(password)
        guard length >= minimumLength else {
            throw MedVaultError(.validation, field: "password", reason: "must have at least \(minimumLength) characters")
        }
        guard bits >= minimumEstimatedBits else {
            throw MedVaultError(.validation, field: "password", reason:
                "is too predictable: it repeats characters, follows runs like abc or 123, or mixes too few kinds of character; a longer passphrase passes")
        }
    }

    /// The estimated strength of `password` in bits (see the type's discussion), for a
    /// strength meter.
    ///
    /// - Throws: `locked` when the password's bytes were wiped.
    public static func estimatedBits(of password: Password) throws -> Double {
        try measure(password).bits
    }

    /// The password's length in scalars and its estimated bits.
    static func measure(_ password: Password) throws -> (length: Int, bits: Double) {
        try password.withUnsafeBytes { bytes in
            // The decoded scalars live in scratch memory zeroed on return, like the bytes.
            SecureMemory.withScratch(byteCount: bytes.count * 4) { raw in
                let scalars = raw.bindMemory(to: UInt32.self)
                var count = 0
                var decoder = UTF8()
                var iterator = bytes.makeIterator()
                decode: while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue(let scalar): scalars[count] = scalar.value
                    case .emptyInput: break decode
                    case .error: scalars[count] = 0xFFFD
                    }
                    count += 1
                }
                var alphabet = 0
                var seen = Set<Kind>()
                for index in 0..<count where seen.insert(Kind(scalars[index])).inserted {
                    alphabet += Kind(scalars[index]).alphabetSize
                }
                let perCharacter = log2(Double(max(alphabet, 1)))
                var bits = 0.0
                for index in 0..<count {
                    let scalar = scalars[index]
                    let continuesRun = index > 0 && abs(Int64(scalar) - Int64(scalars[index - 1])) <= 1
                    let repeated = (0..<index).contains { scalars[$0] == scalar }
                    bits += continuesRun || repeated ? 0 : perCharacter
                }
                return (count, bits)
            }
        }
    }

    /// The kinds of character the estimate tells apart.
    private enum Kind: Hashable {
        case lower, upper, digit, symbol, other

        init(_ scalar: UInt32) {
            switch scalar {
            case 0x61...0x7A: self = .lower
            case 0x41...0x5A: self = .upper
            case 0x30...0x39: self = .digit
            case 0x20...0x7E: self = .symbol
            default: self = .other
            }
        }

        var alphabetSize: Int {
            switch self {
            case .lower, .upper, .other: 26
            case .digit: 10
            case .symbol: 33
            }
        }
    }
}
