import MedVaultCore

/// Honours a server's `Retry-After`: after an HTTP 429, requests fail at once with
/// `rateLimited` (and the time left) until the wait is over, instead of hammering a
/// server that asked for a pause.
actor ICD11RetryGate {
    private var notBefore: ContinuousClock.Instant?

    /// Throws `rateLimited` while a wait the server asked for is running.
    func check() throws {
        guard let notBefore else { return }
        let left = notBefore - ContinuousClock.now
        if left > .zero {
            throw ICD11Errors.http.rateLimited(retryAfter: left)
        }
        self.notBefore = nil
    }

    /// Records a wait the server asked for.
    func wait(_ duration: Duration) {
        let until = ContinuousClock.now + duration
        if notBefore.map({ until > $0 }) ?? true { notBefore = until }
    }
}
