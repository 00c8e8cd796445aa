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
