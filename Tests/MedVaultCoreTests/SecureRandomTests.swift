import MedVaultCore
import Testing

/// `SecureRandom` fills every byte it is given, with bytes that differ call to call.
@Suite("SecureRandom")
struct SecureRandomTests {
    @Test("Ten thousand 12-byte nonces: every one has the length asked for, no two are equal")
    func noncesAreDistinct() {
        var seen = Set<[UInt8]>()
        for _ in 0..<10_000 {
            let nonce = SecureRandom.bytes(12)
            #expect(nonce.count == 12)
            seen.insert(nonce)
        }
        #expect(seen.count == 10_000)
    }

    @Test("Every byte of a buffer is overwritten: 4 KiB of 0xAA come back with each byte value's share near 1/256")
    func fillOverwritesEveryByte() {
        var buffer = [UInt8](repeating: 0xAA, count: 4_096)
        buffer.withUnsafeMutableBytes { SecureRandom.fill($0) }
        var counts = [Int](repeating: 0, count: 256)
        for byte in buffer { counts[Int(byte)] += 1 }
        // 16 expected per value; a buffer left as it was has 4,096 of one value. The bound
        // is far in the tail of the binomial (p < 10⁻¹⁵ per value for random bytes).
        #expect(counts.max() ?? 0 < 64)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
