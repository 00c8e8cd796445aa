import Foundation
import Synchronization

/// Token buckets per key ("device:<id>" or "address:<ip>"), in this process only.
///
/// With several server instances behind a load balancer each keeps its own buckets, so a
/// device may reach up to the limit times the number of instances (docs/sync-server.md).
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// The buckets, and when to sweep them next.
    private struct State {
        var buckets: [String: Bucket] = [:]
        /// The bucket count past which the next take sweeps full (idle) buckets.
        var sweepAt = RateLimiter.sweepThreshold
        var sweeps = 0
    }

    private let rate: Double
    private let burst: Double
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    /// Buckets beyond this count trigger a sweep of full (idle) buckets.
    static let sweepThreshold = 10_000

    init(requestsPerSecond: Double, burst: Double) {
        self.rate = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
    }

    /// Sweeps so far (for the test that proves their cost stays amortized).
    var sweepCount: Int { state.withLock { $0.sweeps } }

    /// Takes one token from `key`'s bucket.
    ///
    /// O(1) amortized, however many clients: a sweep walks every bucket, so after one the
    /// next waits until the count doubles (with 10,000 active clients, a sweep that frees
    /// nothing must not be repeated on every request).
    ///
    /// - Returns: nil when the request may go on, else the seconds to wait.
    func take(_ key: String) -> Int? {
        let now = clock.now
        return state.withLock { state in
            if state.buckets.count > state.sweepAt {
                state.buckets = state.buckets.filter { _, bucket in
                    bucket.tokens + Self.seconds(now - bucket.updated) * rate < burst
                }
                state.sweeps += 1
                state.sweepAt = max(Self.sweepThreshold, 2 * state.buckets.count)
            }
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Self.seconds(now - bucket.updated) * rate)
            bucket.updated = now
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
