import Foundation
import MedVaultCore

/// When ``SyncEngine/automaticSync(_:)`` runs a sync pass.
///
/// A pass starts ``afterCommit`` after a commit on this device (commits meanwhile share
/// it), and at the latest ``interval`` after the previous pass, so other devices' changes
/// arrive even when nothing is written here. With the defaults a change made on one
/// device reaches another within about 16 seconds (the AMD user stories ask for 30).
/// After a pass fails with an error that may pass (offline, timeout, a server error or
/// a rate limit, a keyring conflict), the next one waits ``initialBackoff``, doubled after
/// each further failure up to ``maximumBackoff`` (or the server's `Retry-After`, when
/// longer); commits do not shorten that wait.
public struct SyncSchedule: Sendable, Hashable {
    /// The wait after a local commit before a pass starts.
    public var afterCommit: Duration
    /// The longest time between two passes.
    public var interval: Duration
    /// The wait after the first failed pass.
    public var initialBackoff: Duration
    /// The longest wait after failed passes.
    public var maximumBackoff: Duration

    /// Creates a schedule.
    ///
    /// - Precondition: every duration is positive and `initialBackoff <= maximumBackoff`;
    ///   ``SyncEngine/automaticSync(_:)`` checks it.
    public init(afterCommit: Duration = .seconds(1), interval: Duration = .seconds(15),
                initialBackoff: Duration = .seconds(2), maximumBackoff: Duration = .seconds(300)) {
        self.afterCommit = afterCommit
        self.interval = interval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Throws `invalidArgument` unless every duration is positive and the backoff range is ordered.
    func validate() throws {
        for (field, value) in [("afterCommit", afterCommit), ("interval", interval),
                               ("initialBackoff", initialBackoff), ("maximumBackoff", maximumBackoff)]
            where value <= .zero {
            throw MedVaultError(.invalidArgument, field: field, reason: "a sync schedule's durations must be positive")
        }
        guard initialBackoff <= maximumBackoff else {
            throw MedVaultError(.invalidArgument, field: "initialBackoff", reason: "the first backoff exceeds the maximum")
        }
    }

    /// The wait after `failures` failed passes in a row (1 or more), at least `retryAfter`.
    func backoff(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        var wait = initialBackoff
        for _ in 1..<max(1, failures) {
            wait = wait * 2
            if wait >= maximumBackoff { break }
        }
        wait = min(wait, maximumBackoff)
        if let retryAfter, retryAfter > wait { return retryAfter }
        return wait
    }
}

/// One pass of ``SyncEngine/automaticSync(_:)``.
public enum SyncPass: Sendable, Hashable {
    /// The pass completed.
    case synced(SyncResult)
    /// The pass failed with an error that may pass; the next one starts after `retryIn`.
    case failed(MedVaultError, retryIn: Duration)
    /// The pass failed with an error that will not pass by waiting (`unauthorized`: the
    /// device was revoked; `invalidArgument`: it is not registered; `locked`; `corrupted`;
    /// …); the automatic sync ends after this.
    case stopped(MedVaultError)
}

extension SyncPass {
    /// Whether `error` ends the automatic sync rather than being retried later.
    static func isFinal(_ error: MedVaultError) -> Bool {
        switch error.code {
        case .offline, .timeout, .serverError, .rateLimited, .conflict, .badResponse, .storage, .diskFull: false
        default: true
        }
    }
}
