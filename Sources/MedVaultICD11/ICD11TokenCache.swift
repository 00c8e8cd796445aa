/// The OAuth2 access token of a `WHOICDClient`, fetched once and shared.
///
/// - A token is used until shortly before it expires: `expires_in` minus the refresh
///   margin (at most half the token's lifetime, so a short-lived token is still reused).
/// - Callers arriving while a token is being fetched await that one request: twenty
///   concurrent searches with an expired token make exactly one token request.
/// - ``invalidate(_:)`` drops a token the server refused (HTTP 401), once: later callers
///   that saw the same refusal find a newer token and do not fetch again.
///
/// The token stays in this actor's memory only; it is never written or printed.
actor ICD11TokenCache {
    /// A token and when it stops being used.
    struct Token: Sendable {
        let value: String
        let refreshAt: ContinuousClock.Instant
    }

    /// Fetches a new token: its value and its lifetime (`expires_in`).
    typealias Fetch = @Sendable () async throws -> (value: String, lifetime: Duration)

    private let fetch: Fetch
    private let margin: Duration
    private var current: Token?
    private var refreshing: Task<Token, any Error>?

    init(margin: Duration, fetch: @escaping Fetch) {
        self.margin = margin
        self.fetch = fetch
    }

    /// A valid token: the cached one, the one being fetched, or a new one.
    func token() async throws -> String {
        if let current, ContinuousClock.now < current.refreshAt { return current.value }
        if let refreshing { return try await refreshing.value.value }
        let fetch = fetch
        let margin = margin
        let task = Task<Token, any Error> {
            let started = ContinuousClock.now
            let (value, lifetime) = try await fetch()
            return Token(value: value, refreshAt: started + lifetime - min(margin, lifetime / 2))
        }
        refreshing = task
        defer { refreshing = nil }
        let token = try await task.value
        current = token
        return token.value
    }

    /// Forgets `value` if it is still the current token (the server refused it).
    func invalidate(_ value: String) {
        if current?.value == value { current = nil }
    }
}
