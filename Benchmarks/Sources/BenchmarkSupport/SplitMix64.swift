/// A small, fast, seedable random number generator (Steele, Lea & Flood's SplitMix64).
///
/// Every benchmark run draws its data from a generator seeded with a fixed value, so
/// two runs, on two machines, insert byte-for-byte the same rows and the figures can
/// be compared. Not for secrets: keys come from ``SecureBytes/random(count:)``.
///
/// ```swift
/// var rng = SplitMix64(seed: 0x4D65_6456_6175_6C74)
/// let dice = Int.random(in: 1...6, using: &rng)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The seed every workload starts from unless it says otherwise ("MedVault" in ASCII).
    public static let defaultSeed: UInt64 = 0x4D65_6456_6175_6C74

    private var state: UInt64

    /// Creates a generator; the same seed always yields the same sequence.
    public init(seed: UInt64 = SplitMix64.defaultSeed) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A derived generator for a sub-task, so adding draws to one workload does not
    /// shift the data of another.
    public func fork(_ salt: UInt64) -> SplitMix64 {
        var copy = SplitMix64(seed: state ^ (salt &* 0xD1B5_4A32_D192_ED03))
        _ = copy.next()
        return copy
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            let word = next()
            for shift in stride(from: 0, to: 64, by: 8) where result.count < count {
                result.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return result
    }
}
