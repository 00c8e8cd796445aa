import Crypto
import Foundation
import MedVaultSyncWire
import Testing

/// The real executable: killed with SIGKILL in the middle of pushes, restarted, and
/// clients that retry converge; SIGTERM stops it gracefully; its logs hold no secrets.
@Suite("Sync server process", .serialized, .timeLimit(.minutes(3)))
struct SyncServerProcessTests {
    @Test("SIGKILL during pushes, 5 rounds: after restarts and retries, every envelope is stored once, none lost")
    func killedDuringPushes() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let port = try TestPostgres.freePort()
        let vault = TestVault()
        var server = try await ServerProcess(postgres: postgres, database: database, port: port)
        let device = try await TestDevice.register(vault, client: server.client)
        var allEnvelopes: [SyncEnvelope] = []
        var answered: [UUID: Int64] = [:] // envelope id → sequence, from pushes that got an answer
        var logs = ""
        var interruptedRounds = 0

        for round in 0..<5 {
            let batches = try (0..<30).map { batch in
                try (0..<10).map { try vault.seal("round \(round) batch \(batch) item \($0)", record: "r\(round)/\($0)") }
            }
            allEnvelopes += batches.flatMap { $0 }
            // Push from two concurrent clients while the server is killed under them.
            let pushing = Task { () -> [(batch: [SyncEnvelope], sequences: [Int64])] in
                try await withThrowingTaskGroup(of: [(batch: [SyncEnvelope], sequences: [Int64])].self) { group in
                    for half in 0..<2 {
                        group.addTask {
                            var done: [(batch: [SyncEnvelope], sequences: [Int64])] = []
                            for batch in batches[(half * 15)..<(half * 15 + 15)] {
                                guard let response = try? await device.push(batch), response.status == 200,
                                      let answer = try? response.decode(SyncPushResponse.self) else { break }
                                done.append((batch, answer.sequences))
                            }
                            return done
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
            try await Task.sleep(for: .milliseconds(30 + round * 40))
            await server.stop(SIGKILL)
            let done = try await pushing.value
            if done.count < batches.count { interruptedRounds += 1 }
            for (batch, sequences) in done {
                for (envelope, sequence) in zip(batch, sequences) { answered[envelope.id] = sequence }
            }
            logs += server.standardError
            server = try await ServerProcess(postgres: postgres, database: database, port: port)
            // The client retries every batch of the round: answered ones get their sequences again.
            for batch in batches {
                let sequences = try await device.pushRetrying(batch)
                for (envelope, sequence) in zip(batch, sequences) {
                    if let earlier = answered[envelope.id] {
                        #expect(earlier == sequence, "a retried envelope kept its sequence")
                    }
                    answered[envelope.id] = sequence
                }
            }
        }

        #expect(interruptedRounds > 0, "the kill landed while pushes were still going on")
        let pulled = try await device.pullAll(pageSize: 200)
        #expect(pulled.count == allEnvelopes.count)
        #expect(Set(pulled.map(\.envelope.id)).count == pulled.count, "no duplicate")
        #expect(Set(pulled.map(\.envelope)) == Set(allEnvelopes), "none lost, byte for byte")
        #expect(pulled.map(\.sequence) == Array(1...Int64(allEnvelopes.count)), "dense, in order")
        #expect(pulled.allSatisfy { answered[$0.envelope.id] == $0.sequence })
        #expect(try await postgres.psql(database, "SELECT count(*) FROM envelopes") == "\(allEnvelopes.count)")
        #expect(try pulled.allSatisfy { try vault.open($0.envelope).hasPrefix("round ") })

        logs += server.standardError
        #expect(await server.stop(SIGTERM) == 0)
        logs += server.standardError
        // Debug-level logs of every round: no token, no envelope bytes, no record key.
        #expect(!logs.contains(device.token))
        for envelope in allEnvelopes.prefix(50) {
            #expect(!logs.contains(envelope.ciphertext.base64EncodedString()))
            #expect(!logs.contains(envelope.recordKey.base64EncodedString()))
        }
    }

    @Test("SIGTERM stops the server gracefully with status 0; a malformed variable exits 2 naming it")
    func gracefulShutdownAndBadConfiguration() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let server = try await ServerProcess(postgres: postgres, database: database, port: try TestPostgres.freePort())
        #expect(try await server.client.send("GET", "/v1/health").status == 200)
        #expect(await server.stop(SIGTERM) == 0)

        do {
            _ = try await ServerProcess(postgres: postgres, database: database, port: try TestPostgres.freePort(),
                                        extraEnvironment: ["MEDVAULT_SYNC_MAX_PULL_LIMIT": "lots"])
            Issue.record("the server started with a malformed variable")
        } catch {
            let text = String(describing: error)
            #expect(text.contains("exited (2)"))
            #expect(text.contains("MEDVAULT_SYNC_MAX_PULL_LIMIT"))
            #expect(!text.contains("lots"))
        }
    }

    @Test("At LOG_LEVEL=trace no stored byte reaches the logs: no envelope, keyring or verification key bytes, in hex or base64")
    func traceLogsRevealNoStoredBytes() async throws {
        let postgres = try await TestPostgres.get()
        let database = try await postgres.makeDatabase()
        let server = try await ServerProcess(postgres: postgres, database: database, port: try TestPostgres.freePort(),
                                             extraEnvironment: ["LOG_LEVEL": "trace"])
        let vault = TestVault()
        let keyring = try vault.sealedKeyring(String(repeating: "keyring ", count: 8))
        let device = try await TestDevice.register(vault, client: server.client, keyring: keyring)
        let envelopes = try (0..<5).map { try vault.seal("record \($0) " + String(repeating: "x", count: 64), record: "r\($0)") }
        _ = try await device.pushOK(envelopes)
        #expect(try await device.pullOK().envelopes.count == 5)
        #expect(await server.stop(SIGTERM) == 0)
        let logs = server.standardOutput + server.standardError
        #expect(logs.contains("trace"), "the server did not log at trace level")
        var stored: [Data] = [keyring, vault.signingKey.publicKey.rawRepresentation]
        for envelope in envelopes { stored += [envelope.ciphertext, envelope.recordKey] }
        for bytes in stored {
            // The first and last 16 bytes, as NIO's ByteBuffer description prints them
            // ("a0 1b …"), as plain hex and in base64.
            for part in [bytes.prefix(16), bytes.suffix(16)] {
                let spaced = part.map { String(format: "%02x", $0) }.joined(separator: " ")
                #expect(!logs.contains(spaced), "stored bytes in the trace log: \(spaced)")
                #expect(!logs.contains(part.map { String(format: "%02x", $0) }.joined()))
            }
            #expect(!logs.contains(bytes.base64EncodedString()))
        }
    }

    @Test("PostgreSQL runs as an unprivileged user when the tests run as root")
    func postgresNotRoot() async throws {
        let postgres = try await TestPostgres.get()
        let pid = try postgres.postmasterPID()
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let uidLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        let uid = try #require(uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first)
        #expect(uid != "0")
        if getuid() == 0 {
            #expect(uid == "\(getpwnam(TestPostgres.unprivilegedUser).pointee.pw_uid)")
        }
    }
}
