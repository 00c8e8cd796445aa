import Testing
@testable import MedVaultKeys

/// What `SecureMemory.scrubAfterSecretUse()` clears on the stack. Its clearing of vector
/// registers cannot be observed from Swift; `KeyScanProbe` (KeyHygieneTests) looks for
/// what registers leave behind.
@Suite("Scrubbing after a computation on a secret")
struct SecretScrubTests {
    @Test("the scrub zeroes what a deeper call left on the stack below its caller")
    func stackBelowIsZeroed() throws {
        let pattern: UInt8 = 0xC3
        // Some 20 frames down (a few KiB below this frame, deeper than the check's own
        // calls reach), a call leaves 512 bytes of pattern behind as a secret would.
        let address = leaveBehind(pattern, depth: 20)
        let left = try #require(UnsafePointer<UInt8>(bitPattern: address))
        SecureMemory.scrubAfterSecretUse()
        // Reads memory below this frame that no live frame owns (deliberately: that is
        // where a returned call's secrets stay); nothing between the scrub and the read
        // calls deeper than a few frames.
        var surviving = 0
        for index in 0..<512 where left[index] == pattern { surviving += 1 }
        #expect(surviving < 16, "\(surviving) bytes of the pattern survived")
    }

    @inline(never)
    private func leaveBehind(_ pattern: UInt8, depth: Int) -> UInt {
        if depth > 0 { return leaveBehind(pattern, depth: depth - 1) }
        return withUnsafeTemporaryAllocation(byteCount: 512, alignment: 16) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: pattern)
            return UInt(bitPattern: buffer.baseAddress)
        }
    }
}
