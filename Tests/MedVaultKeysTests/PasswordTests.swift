import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Password")
struct PasswordTests {
    let composed = "Jos\u{00E9}"          // NFC: é as one scalar
    let decomposed = "Jose\u{0301}"       // NFD: e + combining acute

    @Test("NFC and NFD spellings give the same bytes and the same KEK")
    func normalisation() throws {
        #expect(Array(composed.unicodeScalars) != Array(decomposed.unicodeScalars))
        let nfc = try Password(composed)
        let nfd = try Password(decomposed)
        #expect(nfc.bytes == nfd.bytes)
        #expect(bytes(of: nfc.bytes) == [0x4A, 0x6F, 0x73, 0xC3, 0xA9])
        let salt = [UInt8](repeating: 9, count: 16)
        let left = try Argon2id.deriveKey(password: nfc, salt: salt, parameters: .fastForTestsOnly)
        let right = try Argon2id.deriveKey(password: nfd, salt: salt, parameters: .fastForTestsOnly)
        #expect(left == right)
    }

    @Test("valid UTF-8 bytes are normalised like text")
    func bytesNormalised() throws {
        let fromBytes = try Password(bytes: Array(decomposed.utf8))
        let fromSecure = try Password(bytes: SecureBytes(copying: Array(decomposed.utf8)))
        let fromText = try Password(composed)
        #expect(fromBytes.bytes == fromText.bytes)
        #expect(fromSecure.bytes == fromText.bytes)
    }

    @Test("text below U+0300 is its own NFC form and skips Foundation; anything from U+0300 on, or not UTF-8, does not")
    func directPath() throws {
        for text in ["correct horse battery staple", "contraseña ÑANDÚ ¿Qué? ¡Sí! Ærø ß", "\u{02FF}"] {
            #expect(Password.isNFCWithoutNormalising(Array(text.utf8)), "\(text)")
            #expect(Array(text.precomposedStringWithCanonicalMapping.utf8) == Array(text.utf8),
                    "the direct path would change \(text)")
            #expect(bytes(of: try Password(text).bytes) == Array(text.utf8))
            #expect(bytes(of: try Password(bytes: Array(text.utf8)).bytes) == Array(text.utf8))
        }
        for text in [decomposed, "\u{0300}", "Ω\u{2126}", "日本語"] {
            #expect(!Password.isNFCWithoutNormalising(Array(text.utf8)), "\(text)")
        }
        #expect(!Password.isNFCWithoutNormalising([0xC3]))          // cut short
        #expect(!Password.isNFCWithoutNormalising([0xC0, 0x80]))    // overlong
        // Every scalar below U+0300 is NFC-stable, also after another: the direct path never
        // differs from Foundation's.
        for value in 0x20..<0x300 {
            let text = "a" + String(Character(Unicode.Scalar(UInt32(value))!))
            // Bytes, not `==`: Swift compares strings up to canonical equivalence.
            #expect(Array(text.precomposedStringWithCanonicalMapping.utf8) == Array(text.utf8),
                    "U+\(String(value, radix: 16))")
        }
    }

    @Test("bytes that are not UTF-8 are kept as they are")
    func rawBytes() throws {
        let raw: [UInt8] = [0xFF, 0xFE, 0x00, 0x41]
        #expect(bytes(of: try Password(bytes: raw).bytes) == raw)
        #expect(bytes(of: try Password(bytes: SecureBytes(copying: raw)).bytes) == raw)
    }

    @Test("an empty password is a validation error on field password")
    func empty() {
        let expected = MedVaultError.validation("password", "must not be empty")
        #expect(throws: expected) { _ = try Password("") }
        #expect(throws: expected) { _ = try Password(bytes: [UInt8]()) }
        #expect(throws: expected) { _ = try Password(bytes: SecureBytes(copying: [UInt8]())) }
    }

    @Test("NFC and NFD passwords unlock the same keyring")
    func unlockAcrossForms() throws {
        let created = try Keyring.create(password: Password(composed), kdf: .fastForTestsOnly)
        let vaultKey = try created.keyring.unlock(password: Password(decomposed))
        #expect(vaultKey == created.vaultKey)
    }

    @Test("description never shows the password")
    func redacted() throws {
        let password = try Password("hunter2-secret")
        #expect(!"\(password)".contains("hunter2"))
        #expect(!String(reflecting: password).contains("hunter2"))
    }
}
