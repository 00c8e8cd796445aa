import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// `HTTPSyncTransport` (the library's) against this server over real HTTP and a real
/// PostgreSQL, with a real vault's sync keys: every route, every error the engine must
/// tell apart, a server that is down, and a server killed and restarted mid-run.
@Suite("HTTP sync transport end to end", .timeLimit(.minutes(3)))
struct HTTPSyncTransportEndToEndTests {
    @Test("register, join, push in batches, pull in order and paged; a retried push gets the same sequences")
    func pushAndPull() async throws {
        try await TransportVault.with { vault in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let first = try await vault.register(transport)
            let second = try await vault.join(transport)

            var pushed: [SyncEnvelope] = []
            var sequences: [Int64] = []
            var bodies: [Data] = []
            for batch in 0..<3 {
                var envelopes: [SyncEnvelope] = []
                for index in 0..<9 { envelopes.append(try await vault.seal(batch * 9 + index)) }
                let request = SyncPushRequest(envelopes: envelopes)
                bodies.append(try SyncWireJSON.encoder().encode(request))
                sequences += try await transport.push(request, as: first).sequences
                pushed += envelopes
            }
            #expect(sequences == Array(1...27))

            // The second device pulls everything, 10 at a time, in order, and opens it.
            var pulled: [SyncPulledEnvelope] = []
            var after: Int64 = 0
            var pages = 0
            while true {
                let page = try await transport.pull(after: after, limit: 10, as: second)
                pulled += page.envelopes
                after = page.lastSequence
                pages += 1
                if !page.hasMore { break }
            }
            #expect(pages == 3)
            #expect(pulled.map(\.sequence) == Array(1...27))
            #expect(pulled.map(\.envelope) == pushed)
            #expect(pulled.allSatisfy { $0.deviceID == first.deviceID })
            var indices: [Int] = []
            for item in pulled { indices.append(try await vault.open(item.envelope)) }
            #expect(indices == Array(0..<27))

            // A retry of the second batch: the same sequences, nothing stored twice.
            let retry = SyncPushRequest(envelopes: Array(pushed[9..<18]))
            #expect(try await transport.push(retry, as: second).sequences == Array(10...18))
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "27")
            #expect(try await transport.pull(after: 27, limit: 10, as: first).envelopes.isEmpty)

            // Marker scan: neither what the transport sent nor what PostgreSQL holds
            // shows a field of the sealed records, the keyring or the password.
            let dump = try await server.postgres.dump(server.database)
            for haystack in bodies + [dump] {
                #expect(haystack.range(of: Data(TransportVault.marker.utf8)) == nil)
                #expect(haystack.range(of: Data("patient".utf8)) == nil)
                #expect(haystack.range(of: Data(first.deviceToken.utf8)) == nil)
            }
        } }
    }

    @Test("keyring: read, compare-and-swap, a stale generation is conflict and changes nothing")
    func keyringCAS() async throws {
        try await TransportVault.with { vault in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let device = try await vault.register(transport)
            let initial = try await transport.keyring(as: device)
            #expect(initial.generation == 1)

            let second = try await vault.keyringBlob(2, "keyring two")
            let stored = try await transport.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: second),
                                                       as: device)
            #expect(stored == second)
            let stale = try await vault.keyringBlob(2, "keyring two bis")
            let error = await transportError {
                try await transport.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: stale), as: device)
            }
            #expect(error?.code == .conflict)
            #expect(try await transport.keyring(as: device) == second)
        } }
    }

    @Test("revoke: the revoked device's pull is unauthorized at once; revoking twice succeeds; conflicts are conflict")
    func revokeAndConflicts() async throws {
        try await TransportVault.with { vault in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let first = try await vault.register(transport)
            let second = try await vault.join(transport)
            _ = try await transport.pull(after: 0, limit: 10, as: second)

            try await transport.revoke(device: second.deviceID, as: first)
            try await transport.revoke(device: second.deviceID, as: first)
            let refused = await transportError { try await transport.pull(after: 0, limit: 10, as: second) }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.description.contains(second.deviceToken) == false)
            let unknown = await transportError { try await transport.revoke(device: UUID(), as: first) }
            #expect(unknown?.code == .notFound)
            let itself = await transportError { try await transport.revoke(device: first.deviceID, as: first) }
            #expect(itself?.code == .validation)
            _ = try await transport.keyring(as: first)

            // The same vault again, a used device id, an envelope id with other bytes.
            #expect(await transportError { try await vault.register(transport) }?.code == .conflict)
            #expect(await transportError { try await vault.join(transport, deviceID: second.deviceID) }?.code == .conflict)
            let envelope = try await vault.seal(1)
            _ = try await transport.push(SyncPushRequest(envelopes: [envelope]), as: first)
            let forged = try await vault.seal(2, id: envelope.id)
            let conflict = await transportError {
                try await transport.push(SyncPushRequest(envelopes: [try await vault.seal(3), forged]), as: first)
            }
            #expect(conflict?.code == .conflict)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "1")

            // A token the server never issued.
            let stranger = SyncCredentials(vaultID: vault.id, deviceID: first.deviceID,
                                           deviceToken: String(repeating: "A", count: 43))
            #expect(await transportError { try await transport.keyring(as: stranger) }?.code == .unauthorized)
        } }
    }

    @Test("vault A's device cannot read or write vault B: notFound, as for a vault that does not exist")
    func isolation() async throws {
        try await TransportVault.with { vaultA in try await TransportVault.with { vaultB in
        try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let deviceA = try await vaultA.register(transport)
            let deviceB = try await vaultB.register(transport)
            _ = try await transport.push(SyncPushRequest(envelopes: [try await vaultB.seal(1)]), as: deviceB)

            let intruder = SyncCredentials(vaultID: vaultB.id, deviceID: deviceA.deviceID, deviceToken: deviceA.deviceToken)
            #expect(await transportError { try await transport.pull(after: 0, limit: 10, as: intruder) }?.code == .notFound)
            #expect(await transportError { try await transport.keyring(as: intruder) }?.code == .notFound)
            #expect(await transportError {
                try await transport.push(SyncPushRequest(envelopes: [try await vaultA.seal(2)]), as: intruder)
            }?.code == .notFound)
            #expect(try await transport.pull(after: 0, limit: 10, as: deviceA).envelopes.isEmpty)
        } } }
    }

    @Test("rate limited: the transport waits out Retry-After and every call succeeds; with no retries, rateLimited and the wait")
    func rateLimited() async throws {
        var limits = SyncServerLimits()
        // One request every two seconds after a burst of three: calls come faster than
        // that even on a loaded machine, so the loop below empties the bucket however
        // slowly it is scheduled (it calls until refused, up to 30 times).
        limits.requestsPerSecond = 0.5
        limits.burst = 3
        try await TransportVault.with { vault in try await TestServer.with(limits: limits) { server in
            let patient = try makeTransport(server.baseURL, attempts: 5)
            let impatient = try makeTransport(server.baseURL, attempts: 1)
            let device = try await vault.register(patient)
            var refused: MedVaultError?
            for _ in 0..<30 where refused == nil {
                do { _ = try await impatient.keyring(as: device) } catch let error as MedVaultError { refused = error }
            }
            #expect(refused?.code == .rateLimited)
            #expect((refused?.retryAfter ?? .zero) >= .seconds(1))

            // The bucket is empty and refills at one request in two seconds: three calls
            // need waits, which the transport takes from Retry-After.
            let started = ContinuousClock.now
            for _ in 0..<3 { #expect(try await patient.keyring(as: device).generation == 1) }
            #expect(ContinuousClock.now - started >= .seconds(1))
        } }
    }

    @Test("a server that is down: offline, quickly, after the policy's attempts")
    func serverDown() async throws {
        let refusing = try RefusingPort()
        let transport = try makeTransport(URL(string: "http://127.0.0.1:\(refusing.port)")!, attempts: 3)
        let credentials = SyncCredentials(vaultID: UUID(), deviceID: UUID(), deviceToken: "token")
        let started = ContinuousClock.now
        let error = await transportError { try await transport.pull(after: 0, limit: 10, as: credentials) }
        #expect(error?.code == .offline)
        // Quickly: refused connections, not the 30-s timeout (a bound a loaded machine keeps).
        #expect(ContinuousClock.now - started < .seconds(20))
        withExtendedLifetime(refusing) {}
    }
}
