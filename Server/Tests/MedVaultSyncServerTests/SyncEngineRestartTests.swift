import Foundation
import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import Testing

/// Sync engines on real vaults while the server executable is SIGKILLed and restarted,
/// and while PostgreSQL itself is stopped and started again under the same executable:
/// every device converges, and the server holds each change exactly once.
@Suite("Sync engine across server and database restarts", .serialized, .timeLimit(.minutes(5)))
struct SyncEngineRestartTests {
    @Test("The server SIGKILLed during three devices' syncs, 12 rounds: after each restart all converge; every change stored once, none lost")
    func serverKilledTwelveRounds() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let port = try TestPostgres.freePort()
        let url = URL(string: "http://127.0.0.1:\(port)")!
        try await EngineDevices.with { devices in
            var server = try await ServerProcess(postgres: postgres, database: database, port: port)
            // Few, quick attempts: a sync gives up `offline` soon and the device syncs again.
            // The default 30-s timeout: a killed server resets its connections at once, and
            // registering and joining, which are not retried, can take seconds on a loaded machine.
            let transport = try makeTransport(url, attempts: 3, maximumDelay: .milliseconds(100))
            // Batches of 2: every sync is several pushes and pulls, so the kill lands inside one.
            let a = try await devices.register(transport, batchSize: 2)
            let b = try await devices.join(a, transport, batchSize: 2)
            let c = try await devices.join(a, transport, batchSize: 2)
            let all = [a, b, c]
            var interrupted = 0
            var logs = ""
            var tokens: [String] = []
            for device in all { tokens.append(try await device.credentials().deviceToken) }

            for round in 0..<12 {
                for (index, device) in all.enumerated() {
                    try await EngineRecords.addPatients(4, to: device.vault, prefix: "R\(round)D\(index)")
                }
                let syncing = all.map { device in Task { try await device.syncRetrying() } }
                try await Task.sleep(for: .milliseconds(5 + (round * 13) % 60))
                await server.stop(SIGKILL)
                logs += server.standardError
                // Down longer than one sync's transport retries last (3 attempts, 150 ms of
                // waits): a sync caught mid-run fails offline and the device tries again.
                try await Task.sleep(for: .milliseconds(400))
                server = try await ServerProcess(postgres: postgres, database: database, port: port)
                for task in syncing {
                    if try await task.value.failures > 0 { interrupted += 1 }
                }
                try await syncAll(all)
                try await expectConverged(all, patients: (round + 1) * 12)
            }

            #expect(interrupted > 0, "the kills landed while devices were syncing")
            // Each patient is one change, sealed once: one envelope each, none twice, none
            // missing, numbered densely.
            #expect(try await postgres.psql(database, "SELECT count(*) FROM envelopes") == "144")
            #expect(try await postgres.psql(database, "SELECT count(DISTINCT envelope_id) FROM envelopes") == "144")
            #expect(try await postgres.psql(database, "SELECT max(sequence) FROM envelopes") == "144")
            let pulled = try await transport.pull(after: 0, limit: 500, as: try await a.credentials())
            #expect(pulled.envelopes.count == 144)
            #expect(Set(pulled.envelopes.map(\.envelope.id)).count == 144)
            #expect(await server.stop(SIGTERM) == 0)
            logs += server.standardError
            for token in tokens { #expect(!logs.contains(token)) }
        }
    }

    @Test("PostgreSQL stopped (fast) and started again twice under three devices' load: syncs retry over 503s and converge")
    func databaseRestartedUnderLoad() async throws {
        let postgres = try await TestPostgres.makePrivate()
        defer { postgres.shutDown() }
        let database = try await postgres.makeDatabase()
        let port = try TestPostgres.freePort()
        try await EngineDevices.with { devices in
            // A short idle timeout: the devices' idle keep-alive connections are closed
            // soon, so the graceful stop at the end does not wait 30 s for them.
            let server = try await ServerProcess(postgres: postgres, database: database, port: port,
                                                 extraEnvironment: ["MEDVAULT_SYNC_IDLE_TIMEOUT_SECONDS": "2"])
            // The default 30-s timeout: a request waits in the server's pool while PostgreSQL
            // is down (700 ms) and is answered when it is back.
            let transport = try makeTransport(URL(string: "http://127.0.0.1:\(port)")!, attempts: 3,
                                              maximumDelay: .milliseconds(100))
            let a = try await devices.register(transport, batchSize: 5)
            let b = try await devices.join(a, transport, batchSize: 5)
            let c = try await devices.join(a, transport, batchSize: 5)
            let all = [a, b, c]
            let running = StopSignal()
            typealias Span = (start: ContinuousClock.Instant, end: ContinuousClock.Instant)

            // Each device: a change, a sync (retried until it succeeds), again, until told
            // to stop. A request that arrives while PostgreSQL is down either waits in the
            // server's connection pool until it is back or fails 503 and is retried.
            let load = all.enumerated().map { index, device in
                Task { () throws -> (changes: Int, syncs: [Span]) in
                    var changes = 0
                    var syncs: [Span] = []
                    while await !running.stopped || changes == 0 {
                        try await EngineRecords.addPatients(2, to: device.vault, prefix: "L\(index)-\(changes)")
                        changes += 2
                        let start = ContinuousClock.now
                        try await device.syncRetrying()
                        syncs.append((start, .now))
                        await running.completed(device: index, startedAt: start)
                    }
                    return (changes, syncs)
                }
            }
            var outages: [Span] = []
            for _ in 0..<2 {
                try await Task.sleep(for: .milliseconds(400))
                let stopping = ContinuousClock.now
                try await postgres.stop(mode: "fast")
                try await Task.sleep(for: .milliseconds(700))
                try await postgres.start()
                outages.append((stopping, .now))
            }
            // Until every device finished a sync begun after the last restart: an event,
            // not a delay (400 ms was not always enough for a retry's backoff on a busy machine).
            let restarted = outages[outages.count - 1].end
            let deadline = ContinuousClock.now + .seconds(120)
            while await !running.allCompleted(after: restarted, devices: all.count), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            await running.stop()
            var changes = 0
            var syncs: [Span] = []
            for task in load {
                let outcome = try await task.value
                changes += outcome.changes
                syncs += outcome.syncs
            }

            // Load ran through both outages: a sync was under way while the database was
            // down, and syncs completed after it came back.
            for outage in outages {
                #expect(syncs.contains { $0.start < outage.end && $0.end > outage.start }, "a sync met the outage")
                #expect(syncs.contains { $0.start > outage.end }, "syncs went on after the restart")
            }
            try await syncAll(all)
            try await expectConverged(all, patients: changes)
            #expect(try await postgres.psql(database, "SELECT count(*) FROM envelopes") == "\(changes)")
            #expect(try await postgres.psql(database, "SELECT count(DISTINCT envelope_id) FROM envelopes") == "\(changes)")
            // What failed while the database was away was 503 (retry soon), never 500:
            // PostgreSQL's shutdown and startup errors are unavailability, not a fault.
            let metrics = try await server.client.send("GET", "/metrics", token: TestServer.metricsToken).text
            #expect(metrics.contains("medvault_sync_requests_total"))
            #expect(!metrics.contains("status=\"500\""))
            // The same process served throughout, and a graceful stop (SIGTERM) ends it
            // with status 0 although PostgreSQL ended its connections twice under load
            // (a query sent on a just-closed connection used to wait forever, and the
            // stop with it: PostgresConnection+Guarded.swift).
            #expect(await server.stop(SIGTERM, within: .seconds(10)) == 0)
        }
    }
}

/// A flag the test raises to end its load loops, and when each device last finished a sync.
actor StopSignal {
    private(set) var stopped = false
    /// The start of the latest sync each device (by index) finished.
    private var finished: [Int: ContinuousClock.Instant] = [:]

    func stop() {
        stopped = true
    }

    func completed(device: Int, startedAt start: ContinuousClock.Instant) {
        finished[device] = max(finished[device] ?? start, start)
    }

    /// Whether each of `devices` finished a sync begun after `instant`.
    func allCompleted(after instant: ContinuousClock.Instant, devices: Int) -> Bool {
        (0..<devices).allSatisfy { finished[$0].map { $0 > instant } ?? false }
    }
}
