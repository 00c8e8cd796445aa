import Testing
@testable import MedVaultKeys

@Suite("SecureBytes")
struct SecureBytesTests {
    @Test("wipe zeroes every byte")
    func wipe() {
        let secret = SecureBytes(copying: [1, 2, 3, 4, 5])
        #expect(!secret.wasWiped)
        secret.wipe()
        #expect(secret.wasWiped)
        #expect(bytes(of: secret) == [0, 0, 0, 0, 0])
    }

    @Test("== compares contents and lengths")
    func equality() {
        #expect(SecureBytes(copying: [1, 2, 3]) == SecureBytes(copying: [1, 2, 3]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2, 4]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2]))
        let random = SecureBytes.random(count: 32)
        #expect(random == random)
        #expect(random != SecureBytes.random(count: 32))
    }

    @Test("description redacts the bytes")
    func redacted() {
        let secret = SecureBytes(copying: Array("topsecret".utf8))
        #expect("\(secret)" == "SecureBytes(9 bytes, redacted)")
        #expect(!String(reflecting: secret).contains("topsecret"))
    }
}
