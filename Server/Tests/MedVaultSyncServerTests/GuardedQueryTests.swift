import Foundation
import Logging
@testable import MedVaultSyncServer
import PostgresNIO
import Synchronization
import Testing

/// A query on a connection PostgreSQL has just ended (a restart, `pg_terminate_backend`)
/// must fail, not wait forever: a request waiting forever also holds a graceful shutdown
/// (PostgresConnection+Guarded.swift).
@Suite("Queries on a connection PostgreSQL closed", .serialized, .timeLimit(.minutes(2)))
struct GuardedQueryTests {
    @Test("A query on a connection PostgreSQL terminated fails unavailable at once; PostgresNIO's own query would never answer")
    func closedConnection() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let logger = Logger(label: "test")
        let client = PostgresClient(configuration: TestServer.postgresConfiguration(postgres, database),
                                    backgroundLogger: logger)
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        try await client.withConnection { connection in
            var backend: Int32?
            for try await pid in try await connection.guardedQuery("SELECT pg_backend_pid()", logger: logger)
                .decode(Int32.self) { backend = pid }
            let pid = try #require(backend)
            #expect(try await postgres.psql(database, "SELECT pg_terminate_backend(\(pid))") == "t")
            let deadline = ContinuousClock.now + .seconds(10)
            while !connection.isClosed && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(connection.isClosed)
            try await Task.sleep(for: .milliseconds(200)) // NIO removes the handlers after the close

            // What the guard works around, in the pinned PostgresNIO: the query is lost.
            // When this fails, PostgresNIO answers such queries itself and the guard's
            // watcher may go.
            let answered = AnsweredFlag()
            Task {
                _ = try? await connection.query("SELECT 1", logger: logger)
                answered.value.store(true, ordering: .relaxed)
            }
            try await Task.sleep(for: .seconds(2))
            let wasAnswered = answered.value.load(ordering: .relaxed)
            #expect(!wasAnswered, "PostgresNIO now answers a query on a closed connection")

            let start = ContinuousClock.now
            await #expect(throws: SyncServerError.self) {
                try await connection.guardedQuery("SELECT 1", logger: logger)
            }
            // "At once" against "never": a bound a loaded machine keeps, far below the time limit.
            #expect(ContinuousClock.now - start < .seconds(10))
        }
        runner.cancel()
        await runner.value
    }
}

/// Set when a query answered.
final class AnsweredFlag: Sendable {
    let value = Atomic<Bool>(false)
}
