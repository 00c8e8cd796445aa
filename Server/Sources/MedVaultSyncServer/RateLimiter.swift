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

    private let rate: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private let clock = ContinuousClock()

    /// Buckets beyond this count trigger a sweep of full (idle) buckets.
    private static let sweepThreshold = 10_000

    init(requestsPerSecond: Double, burst: Double) {
        self.rate = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
    }

    /// Takes one token from `key`'s bucket.
    ///
    /// - Returns: nil when the request may go on, else the seconds to wait.
    func take(_ key: String) -> Int? {
        let now = clock.now
        return buckets.withLock { buckets in
            if buckets.count > Self.sweepThreshold {
                buckets = buckets.filter { _, bucket in
                    bucket.tokens + Self.seconds(now - bucket.updated) * rate < burst
                }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Self.seconds(now - bucket.updated) * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
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
