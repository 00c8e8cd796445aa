import Logging
import PostgresNIO
import Synchronization

/// Queries that cannot wait forever on a connection PostgreSQL has just closed.
///
/// PostgresNIO 1.33 sends a query with `channel.write(task, promise: nil)`. When the
/// connection closed an instant earlier (PostgreSQL stopping or restarting ends every
/// session; the pool learns it a moment later and may still lend the connection), NIO
/// has already removed the connection's handlers: the write fails on a closed channel,
/// that failure goes to the `nil` promise, and the query's own promise is never completed.
/// The request then waits forever, and so does a graceful shutdown, which waits for
/// requests in flight (docs/sync-server.md, "Running it").
///
/// So a query is refused at once on a closed connection, and a query that is still
/// unanswered once its connection has closed is given up (``closeGrace``) with
/// ``SyncServerError/unavailable``, which clients retry. The lost send itself stays
/// suspended: PostgresNIO holds the only way to complete it.
extension PostgresConnection {
    /// How often a pending query looks at its connection (a query that answers sooner
    /// never looks: its watcher is cancelled).
    static let closePollInterval = Duration.milliseconds(50)
    /// How long a query may still answer after its connection closed: PostgresNIO fails
    /// the queries it did receive at once, with PostgreSQL's own error. Short, because a
    /// request held here is a device's sync held after PostgreSQL is back.
    static let closeGrace = Duration.milliseconds(250)

    /// `query(_:logger:)`, failing with ``SyncServerError/unavailable`` instead of waiting
    /// forever when the connection is closed or closes before the query is sent.
    @discardableResult
    func guardedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else { throw SyncServerError.unavailable }
        let outcome = GuardedQueryOutcome()
        return try await withCheckedThrowingContinuation { continuation in
            outcome.start(continuation)
            let watcher = Task { [self] in
                // Cancelled (and so ended) as soon as the query answers.
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.closePollInterval)
                    if isClosed {
                        try await Task.sleep(for: Self.closeGrace)
                        outcome.finish(.failure(SyncServerError.unavailable))
                        return
                    }
                }
            }
            Task { [self] in
                do {
                    outcome.finish(.success(try await self.query(query, logger: logger)))
                } catch {
                    outcome.finish(.failure(error))
                }
                watcher.cancel()
            }
        }
    }
}

/// The one answer of a guarded query: the first of the query's own result and the
/// watcher's verdict.
private final class GuardedQueryOutcome: Sendable {
    private let continuation = Mutex<CheckedContinuation<PostgresRowSequence, any Error>?>(nil)

    func start(_ continuation: CheckedContinuation<PostgresRowSequence, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func finish(_ result: Result<PostgresRowSequence, any Error>) {
        let waiting = continuation.withLock { stored -> CheckedContinuation<PostgresRowSequence, any Error>? in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(with: result)
    }
}
