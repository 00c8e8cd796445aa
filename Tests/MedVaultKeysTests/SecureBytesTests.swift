import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("SecureBytes")
struct SecureBytesTests {
    @Test("a wiped buffer throws locked instead of reading back as zeros")
    func wipe() throws {
        let secret = SecureBytes(copying: [1, 2, 3, 4, 5])
        #expect(!secret.wasWiped)
        #expect(bytes(of: secret) == [1, 2, 3, 4, 5])
        secret.wipe()
        #expect(secret.wasWiped)
        let error = #expect(throws: MedVaultError.self) { try secret.withUnsafeBytes { Array($0) } }
        #expect(error?.code == .locked)
        #expect(throws: MedVaultError.self) { try secret.copy() }
    }

    @Test("sealing a wiped key throws locked: no slot around 32 zero bytes")
    func sealWiped() throws {
        let key = SecureBytes.random(count: 32)
        key.wipe()
        let kek = try KeyWrap.key(SecureBytes.random(count: 32))
        let error = #expect(throws: MedVaultError.self) { try KeyWrap.seal(key, under: kek, associatedData: []) }
        #expect(error?.code == .locked)
        #expect(throws: MedVaultError.self) { try KeyWrap.key(key) }
    }

    @Test("== compares contents and lengths; a wiped buffer equals only itself")
    func equality() {
        #expect(SecureBytes(copying: [1, 2, 3]) == SecureBytes(copying: [1, 2, 3]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2, 4]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2]))
        let random = SecureBytes.random(count: 32)
        #expect(random == random)
        #expect(random != SecureBytes.random(count: 32))
        let zeros = SecureBytes(copying: [UInt8](repeating: 0, count: 32))
        let wiped = SecureBytes.random(count: 32)
        wiped.wipe()
        #expect(wiped != zeros)
        #expect(zeros != wiped)
    }

    @Test("a == b racing b == a does not deadlock")
    func noDeadlock() {
        let first = SecureBytes.random(count: 32)
        let second = SecureBytes.random(count: 32)
        let done = DispatchSemaphore(value: 0)
        for flip in [false, true] {
            Thread.detachNewThread {
                for _ in 0..<50_000 {
                    _ = flip ? first == second : second == first
                }
                done.signal()
            }
        }
        // The old argument-order locking deadlocked within a few thousand rounds.
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(done.wait(timeout: .now() + 30) == .success)
    }

    @Test("copying from a collection needs no intermediate array and keeps the bytes")
    func copying() {
        let data = Data([9, 8, 7])
        #expect(bytes(of: SecureBytes(copying: data)) == [9, 8, 7])
        #expect(bytes(of: SecureBytes(copying: data.dropFirst())) == [8, 7])
        #expect(bytes(of: SecureBytes(copying: "abc".utf8)) == Array("abc".utf8))
    }

    @Test("every secret has pages of its own, libsodium's guarded allocation")
    func pageIsolation() {
        let secrets = (0..<8).map { _ in SecureBytes.random(count: 32) }
        for (index, secret) in secrets.enumerated() {
            #expect(secret.isGuarded)
            for other in secrets[(index + 1)...] {
                #expect(!secret.pageRange.overlaps(other.pageRange))
            }
        }
    }

    #if os(Linux)
    @Test("freeing one secret leaves another's page locked")
    func freeingKeepsOthersLocked() throws {
        let survivor = SecureBytes.random(count: 32)
        try #require(survivor.isMemoryLocked, "mlock is refused here (RLIMIT_MEMLOCK)")
        do {
            // Alive at once, so that most outnumber the pool of released regions and go
            // back to libsodium (`sodium_free` unlocks and unmaps their pages).
            let transients = (0..<64).map { _ in SecureBytes.random(count: 32) }
            for transient in transients { transient.wipe() }
        }
        #expect(lockedKiB(containing: survivor.pageRange.lowerBound) > 0)
    }

    /// The `Locked:` size of the mapping that contains `address`, from /proc/self/smaps.
    private func lockedKiB(containing address: UInt) -> Int {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"),
              let data = try? handle.readToEnd() else { return -2 }
        try? handle.close()
        let smaps = String(decoding: data, as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && (bounds[0]..<bounds[1]).contains(address)
            } else if inside, fields.first == "Locked:", fields.count >= 2 {
                return Int(fields[1]) ?? -1
            }
        }
        return -1
    }
    #endif

    @Test("description redacts the bytes")
    func redacted() {
        let secret = SecureBytes(copying: Array("topsecret".utf8))
        #expect("\(secret)" == "SecureBytes(9 bytes, redacted)")
        #expect(!String(reflecting: secret).contains("topsecret"))
    }
}
