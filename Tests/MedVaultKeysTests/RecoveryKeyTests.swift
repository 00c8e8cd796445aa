import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("RecoveryKey")
struct RecoveryKeyTests {
    let checksumMismatch = MedVaultError(.invalidArgument, field: "recoveryKey", reason: "checksum mismatch")

    @Test("formatted as 8 hyphen-separated groups of 7 Crockford characters, 256 bits")
    func format() {
        let key = RecoveryKey.generate()
        #expect(key.bytes.count == 32)
        let groups = key.formatted.split(separator: "-")
        #expect(groups.count == 8)
        #expect(groups.allSatisfy { $0.count == 7 })
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        #expect(key.formatted.replacingOccurrences(of: "-", with: "").allSatisfy { alphabet.contains($0) })
        #expect(RecoveryKey.generate() != key)
    }

    @Test("parsing round-trips and tolerates case, spaces, hyphens and I/L/O")
    func tolerantParsing() throws {
        let key = RecoveryKey.generate()
        let text = key.formatted
        #expect(try RecoveryKey(parsing: text) == key)
        #expect(try RecoveryKey(parsing: text.lowercased()) == key)
        #expect(try RecoveryKey(parsing: text.replacingOccurrences(of: "-", with: " ")) == key)
        #expect(try RecoveryKey(parsing: " " + text.replacingOccurrences(of: "-", with: "") + "\n") == key)
        let confusable = text.replacingOccurrences(of: "1", with: "l").replacingOccurrences(of: "0", with: "O")
        #expect(try RecoveryKey(parsing: confusable) == key)
        #expect(try RecoveryKey(parsing: text.replacingOccurrences(of: "1", with: "I")) == key)
    }

    @Test("a mistyped character in any group fails the checksum, before any KDF")
    func mistypedGroup() throws {
        let key = RecoveryKey.generate()
        let characters = Array(key.formatted)
        for group in 0..<8 {
            var typo = characters
            let index = group * 8 + 3
            typo[index] = typo[index] == "A" ? "B" : "A"
            #expect(throws: checksumMismatch) { _ = try RecoveryKey(parsing: String(typo)) }
        }
        // Two groups swapped.
        let groups = key.formatted.split(separator: "-").map(String.init)
        var swapped = groups
        swapped.swapAt(0, 1)
        if swapped != groups {
            #expect(throws: checksumMismatch) { _ = try RecoveryKey(parsing: swapped.joined(separator: "-")) }
        }
    }

    @Test("wrong length and invalid characters are distinct errors")
    func malformed() {
        #expect(throws: MedVaultError(.invalidArgument, field: "recoveryKey", reason: "wrong length")) {
            _ = try RecoveryKey(parsing: "ABCD-EFG")
        }
        #expect(throws: MedVaultError(.invalidArgument, field: "recoveryKey", reason: "invalid character")) {
            _ = try RecoveryKey(parsing: String(repeating: "U", count: 56))
        }
        #expect(throws: MedVaultError(.invalidArgument, field: "recoveryKey", reason: "invalid character")) {
            _ = try RecoveryKey(parsing: String(repeating: "é", count: 56))
        }
    }

    @Test("a mistyped recovery key is refused by parsing, so no keyring is tried")
    func mistypedNeverReachesKeyring() throws {
        let created = try makeKeyring()
        var typo = Array(created.recoveryKey.formatted)
        typo[0] = typo[0] == "Z" ? "Y" : "Z"
        let started = ContinuousClock.now
        #expect(throws: checksumMismatch) { _ = try RecoveryKey(parsing: String(typo)) }
        // Parsing only (microseconds); a bound a loaded machine keeps.
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("description never shows the key")
    func redacted() {
        let key = RecoveryKey.generate()
        let firstGroup = String(key.formatted.prefix(7))
        #expect(!"\(key)".contains(firstGroup))
        #expect(!String(reflecting: key).contains(firstGroup))
    }

    @Test("parsing UTF-8 bytes (no String) equals parsing text; errors are the same")
    func parsingBytes() throws {
        let key = RecoveryKey.generate()
        let text = key.formatted
        #expect(try RecoveryKey(parsing: Array(text.utf8)) == key)
        #expect(try RecoveryKey(parsing: Array(text.lowercased().utf8)) == key)
        let short = #expect(throws: MedVaultError.self) { _ = try RecoveryKey(parsing: Array(text.utf8.dropLast())) }
        #expect(short?.reason == "wrong length")
    }

    @Test("a wiped key formats as an empty string, never as zeros")
    func wipedFormatsEmpty() {
        let key = RecoveryKey.generate()
        #expect(key.formatted.count == 8 * 7 + 7)
        key.bytes.wipe()
        #expect(key.formatted == "")
    }
}
