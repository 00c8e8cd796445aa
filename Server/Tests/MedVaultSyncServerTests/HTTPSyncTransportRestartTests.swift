import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import Testing

/// The real executable SIGKILLed while a device pushes through `HTTPSyncTransport`, then
/// restarted on the same port: the transport's retries carry the pushes over the gap
/// (or report offline, and the device pushes again), and the vault ends with every
/// envelope once, in dense order.
@Suite("HTTP sync transport across a server restart", .serialized, .timeLimit(.minutes(3)))
struct HTTPSyncTransportRestartTests {
    @Test("SIGKILL mid-run and restart: retries recover, retried batches keep their sequences, nothing duplicated")
    func killedAndRestarted() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let port = try TestPostgres.freePort()
        try await TransportVault.with { vault in
            let first = try await ServerProcess(postgres: postgres, database: database, port: port)
            let url = URL(string: "http://127.0.0.1:\(port)")!
            // Up to 80 attempts, 250 ms apart at most: the transport outlasts a restart. The
            // default 30-s timeout: a killed server resets its connections at once, and a
            // loaded machine can take seconds to answer the registration, which is not retried.
            let transport = try makeTransport(url, attempts: 80, maximumDelay: .milliseconds(250))
            let device = try await vault.register(transport)
            var sealed: [[SyncEnvelope]] = []
            for batch in 0..<20 {
                var envelopes: [SyncEnvelope] = []
                for index in 0..<10 { envelopes.append(try await vault.seal(batch * 10 + index)) }
                sealed.append(envelopes)
            }
            let batches = sealed

            let (firstAnswer, signal) = AsyncStream.makeStream(of: Void.self)
            let pushing = Task { () throws -> (sequences: [[Int64]], reported: [MedVaultError.Code],
                                                answeredAt: [ContinuousClock.Instant]) in
                var sequences: [[Int64]] = []
                var answeredAt: [ContinuousClock.Instant] = []
                // Also when a push fails for good: the test must never wait on a silent stream.
                defer { signal.finish() }
                var reported: [MedVaultError.Code] = []
                for batch in batches {
                    let request = SyncPushRequest(envelopes: batch)
                    while true {
                        do {
                            sequences.append(try await transport.push(request, as: device).sequences)
                            answeredAt.append(.now)
                            signal.yield()
                            // Paced (about a second in all), so the kill lands mid-run.
                            try await Task.sleep(for: .milliseconds(50))
                            break
                        } catch let error as MedVaultError {
                            // The transport gave up: it must say offline (or timeout), never
                            // something the device would take as final.
                            reported.append(error.code)
                            guard [.offline, .timeout, .serverError].contains(error.code), reported.count < 5 else {
                                throw error
                            }
                            try await Task.sleep(for: .milliseconds(500))
                        }
                    }
                }
                return (sequences, reported, answeredAt)
            }
            var answers = firstAnswer.makeAsyncIterator()
            _ = await answers.next()
            await first.stop(SIGKILL)
            let killedAt = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(800))
            let second = try await ServerProcess(postgres: postgres, database: database, port: port)
            let (sequences, reported, answeredAt) = try await pushing.value

            // The kill landed mid-run: batches were answered before it and after it.
            #expect(answeredAt.filter { $0 < killedAt }.count < batches.count)
            #expect(answeredAt.contains { $0 > killedAt })

            #expect(reported.allSatisfy { $0 == .offline || $0 == .timeout || $0 == .serverError })
            #expect(sequences.flatMap { $0 } == Array(1...200), "every batch numbered once, densely, in push order")
            // Every batch pushed again (a device that lost its answers): the same sequences.
            for (batch, expected) in zip(batches, sequences) {
                #expect(try await transport.push(SyncPushRequest(envelopes: batch), as: device).sequences == expected)
            }
            var pulled: [SyncPulledEnvelope] = []
            var after: Int64 = 0
            while true {
                let page = try await transport.pull(after: after, limit: 64, as: device)
                pulled += page.envelopes
                after = page.lastSequence
                if !page.hasMore { break }
            }
            #expect(pulled.map(\.envelope) == batches.flatMap { $0 })
            #expect(pulled.map(\.sequence) == Array(1...200))
            #expect(try await postgres.psql(database, "SELECT count(*) FROM envelopes") == "200")
            let logs = first.standardError + second.standardError
            #expect(!logs.contains(device.deviceToken))
            #expect(await second.stop(SIGTERM) == 0)
        }
    }

    @Test("PostgreSQL drops the server's connections mid-run: pushes retry over the 5xx answers, none lost or doubled")
    func databaseConnectionsDropped() async throws {
        try await TransportVault.with { vault in try await TestServer.with { server in
            // The default 30-s timeout: registering is not retried after a timeout, and a
            // request on a loaded CI machine took more than 5 s.
            let transport = try makeTransport(server.baseURL, attempts: 40, maximumDelay: .milliseconds(200))
            let device = try await vault.register(transport)
            var sealed: [[SyncEnvelope]] = []
            for batch in 0..<12 {
                var envelopes: [SyncEnvelope] = []
                for index in 0..<5 { envelopes.append(try await vault.seal(batch * 5 + index)) }
                sealed.append(envelopes)
            }
            let batches = sealed
            let pushing = Task { () throws -> [Int64] in
                var sequences: [Int64] = []
                for batch in batches {
                    sequences += try await transport.push(SyncPushRequest(envelopes: batch), as: device).sequences
                    try await Task.sleep(for: .milliseconds(40))
                }
                return sequences
            }
            // Only this test's database: the shared PostgreSQL keeps serving the others.
            var terminated = 0
            for _ in 0..<4 {
                try await Task.sleep(for: .milliseconds(90))
                let killed = try await server.sql("""
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """)
                terminated += Int(killed) ?? 0
            }
            let sequences = try await pushing.value
            #expect(terminated > 0, "the server's connections were dropped while it served")
            #expect(sequences == Array(1...60))
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "60")
            let page = try await transport.pull(after: 0, limit: 100, as: device)
            #expect(page.envelopes.map(\.envelope) == batches.flatMap { $0 })
        } }
    }
}
