import Foundation

/// When ``HTTPSyncTransport`` tries a call again, and how long it waits in between.
///
/// A failed call is retried when the server cannot have acted on it or when acting twice
/// is harmless: the server could not be reached, did not answer in time, failed (5xx) or
/// asked to slow down (429). It is never retried for `unauthorized`, `conflict`,
/// `notFound`, `validation` or `limitExceeded`: the same request would fail the same way.
///
/// The wait before attempt *n + 1* is `initialDelay × multiplier^(n-1)`, at most
/// `maximumDelay`, less a random part of up to `jitter` of it (so that devices that lost
/// the server together do not come back together), and never shorter than the server's
/// `Retry-After`.
///
/// For example:
///
/// ```swift
/// var configuration = HTTPSyncTransport.Configuration(baseURL: url)
/// configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: 6, maximumDelay: .seconds(30))
/// ```
public struct HTTPSyncRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1: never retry).
    public var maximumAttempts: Int
    /// The wait before the second attempt.
    public var initialDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration
    /// The growth of the wait from one attempt to the next.
    public var multiplier: Double
    /// The fraction of each wait drawn at random (0: exact waits, 1: anywhere from zero).
    public var jitter: Double
    /// The longest `Retry-After` the transport waits for itself; a longer one fails the
    /// call at once with `rateLimited` and the server's wait.
    public var maximumRetryAfter: Duration

    /// Creates a policy.
    ///
    /// Out-of-range values are clamped: at least one attempt, waits not negative, a
    /// multiplier of at least 1, a jitter between 0 and 1.
    public init(maximumAttempts: Int = 4, initialDelay: Duration = .milliseconds(500),
                maximumDelay: Duration = .seconds(8), multiplier: Double = 2, jitter: Double = 0.5,
                maximumRetryAfter: Duration = .seconds(60)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(.zero, maximumDelay)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0
        self.maximumRetryAfter = max(.zero, maximumRetryAfter)
    }

    /// One attempt only: every failure is reported at once.
    public static let never = HTTPSyncRetryPolicy(maximumAttempts: 1)

    /// The wait before attempt `attempt + 1`, after attempt `attempt` (from 1) failed.
    ///
    /// - Parameters:
    ///   - attempt: The attempt that failed, from 1.
    ///   - retryAfter: The server's `Retry-After`, if it sent one.
    ///   - random: A number in `0..<1` (the jitter's draw).
    /// - Returns: The wait.
    public func delay(after attempt: Int, retryAfter: Duration? = nil, random: Double) -> Duration {
        let base = Self.seconds(initialDelay) * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(base, Self.seconds(maximumDelay))
        let jittered = capped * (1 - jitter * min(max(random, 0), 1))
        // At most about 285 years in milliseconds: no overflow converting to Int64.
        let backoff = Duration.milliseconds(Int64(min(jittered * 1000, 9e15).rounded()))
        guard let retryAfter else { return backoff }
        return max(backoff, retryAfter)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
