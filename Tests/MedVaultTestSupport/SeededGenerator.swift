import Foundation
import Testing

/// A small deterministic random number generator (SplitMix64) for tests that randomise
/// timings: a failing run prints its seed, and `MEDVAULT_TEST_SEED=<seed>` replays the
/// same choices (the timings themselves still vary with the machine's load).
package struct SeededGenerator: RandomNumberGenerator {
    /// The seed this generator started from, for failure messages.
    package let seed: UInt64
    private var state: UInt64

    package init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator seeded from `MEDVAULT_TEST_SEED` when it is set, else at random.
    package static func fromEnvironment() -> SeededGenerator {
        let chosen = ProcessInfo.processInfo.environment["MEDVAULT_TEST_SEED"].flatMap { UInt64($0) }
        return SeededGenerator(seed: chosen ?? UInt64.random(in: 0...UInt64.max))
    }

    /// Runs `body`; an error it throws is recorded with the seed before it is rethrown, so
    /// a failure that is not an expectation still names the seed that replays it.
    package func reportingSeed<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch {
            Issue.record("seed \(seed) (replay with MEDVAULT_TEST_SEED=\(seed)): \(error)")
            throw error
        }
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
