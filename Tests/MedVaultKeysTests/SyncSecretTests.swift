import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("SyncSecret")
struct SyncSecretTests {
    @Test("formatted as 4 hyphen-separated groups of 8 Crockford characters over 128 random bits")
    func format() {
        let secret = SyncSecret.generate()
        #expect(secret.bytes.count == 16)
        let groups = secret.formatted.split(separator: "-")
        #expect(groups.count == 4)
        #expect(groups.allSatisfy { $0.count == 8 })
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        #expect(secret.formatted.replacingOccurrences(of: "-", with: "").allSatisfy { alphabet.contains($0) })
        #expect(SyncSecret.generate() != secret)
    }

    @Test("parsing round-trips and forgives case, spaces, hyphens and I/L/O")
    func tolerantParsing() throws {
        // Fixed bytes whose text holds both 0 and 1, so the I/L/O readings are exercised.
        let secret = SyncSecret(bytes: SecureBytes(copying: [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0x42, count: 8)))
        let text = secret.formatted
        #expect(text.contains("0") && text.contains("1"))
        #expect(try SyncSecret(parsing: text) == secret)
        #expect(try SyncSecret(parsing: text.lowercased().replacingOccurrences(of: "-", with: " ")) == secret)
        let confusable = text.replacingOccurrences(of: "1", with: "l").replacingOccurrences(of: "0", with: "O")
        #expect(try SyncSecret(parsing: confusable) == secret)
    }

    @Test("a mistyped character, a wrong length, a foreign character or a recovery key are refused on field syncSecret",
          arguments: ["typo", "short", "character", "recoveryKey"])
    func refusals(_ kind: String) throws {
        var text = SyncSecret.generate().formatted
        let expected: String
        switch kind {
        case "typo":
            var characters = Array(text)
            characters[9] = characters[9] == "7" ? "8" : "7"
            text = String(characters)
            expected = "checksum mismatch"
        case "short":
            text.removeLast()
            expected = "wrong length"
        case "character":
            text = "U" + text.dropFirst()
            expected = "invalid character"
        default:
            text = RecoveryKey.generate().formatted
            expected = "wrong length"
        }
        #expect(throws: MedVaultError(.invalidArgument, field: "syncSecret", reason: expected)) {
            _ = try SyncSecret(parsing: text)
        }
    }

    @Test("never shows its bytes in a description, and formats as nothing once wiped")
    func redactedAndWiped() {
        let secret = SyncSecret.generate()
        #expect("\(secret)" == "SyncSecret(redacted)")
        #expect(String(reflecting: secret) == "SyncSecret(redacted)")
        secret.wipe()
        #expect(secret.formatted.isEmpty)
    }

    @Test("stored bytes of any length but 16 are corrupted")
    func storedLength() throws {
        #expect(throws: MedVaultError(.corrupted, reason: "the stored sync secret has the wrong length")) {
            _ = try [UInt8](repeating: 1, count: 15).withUnsafeBytes { try SyncSecret(storedBytes: $0) }
        }
        let secret = SyncSecret.generate()
        #expect(try secret.storedBytes().withUnsafeBytes { try SyncSecret(storedBytes: $0) } == secret)
    }
}
