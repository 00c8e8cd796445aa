import Crypto
import Foundation
import MedVaultSyncServer
import MedVaultSyncWire
import Testing

/// The API over real HTTP against a real PostgreSQL: register, join, push, pull, keyring.
@Suite("Sync server API", .serialized, .timeLimit(.minutes(3)))
struct SyncAPITests {
    @Test("Two devices: what one pushes the other pulls byte for byte and opens; the server never needed a key")
    func roundTrip() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let second = try await TestDevice.join(vault, client: server.client)
            let envelopes = try (1...3).map { try vault.seal("change \($0)", record: "patients/\($0)") }
            #expect(try await first.pushOK(envelopes) == [1, 2, 3])

            let page = try await second.pullOK()
            #expect(page.envelopes.map(\.envelope) == envelopes)
            #expect(page.envelopes.map(\.sequence) == [1, 2, 3])
            #expect(page.envelopes.allSatisfy { $0.deviceID == first.id })
            #expect(page.lastSequence == 3)
            #expect(page.hasMore == false)
            #expect(try page.envelopes.map { try vault.open($0.envelope) } == ["change 1", "change 2", "change 3"])

            // The second device pushes; sequences continue.
            #expect(try await second.pushOK([try vault.seal("change 4", record: "patients/1")]) == [4])
            let rest = try await first.pullOK(after: 3)
            #expect(rest.envelopes.map(\.sequence) == [4])
            #expect(rest.envelopes.first?.deviceID == second.id)
        }
    }

    @Test("A retried push gets the same sequences and stores nothing twice; a mixed retry adds only the new one")
    func idempotentRetry() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let batch = try (1...4).map { try vault.seal("dose \($0)", record: "doses/\($0)") }
            let first = try await device.pushOK(batch)
            let retried = try await device.pushOK(batch)
            #expect(first == [1, 2, 3, 4])
            #expect(retried == first)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "4")

            let extra = try vault.seal("dose 5", record: "doses/5")
            #expect(try await device.pushOK([batch[2], extra, batch[2]]) == [3, 5, 3])
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "5")
            #expect(try await server.sql("SELECT last_sequence FROM vaults") == "5")
        }
    }

    @Test("The same envelope id with other bytes is 409 and the whole batch is refused")
    func conflictingRetry() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let original = try vault.seal("original", record: "notes/1")
            _ = try await device.pushOK([original])
            let forged = try vault.seal("forged", record: "notes/1", id: original.id)
            let fresh = try vault.seal("fresh", record: "notes/2")
            let response = try await device.push([fresh, forged])
            #expect(response.status == 409)
            let body = try response.decode(SyncErrorBody.self)
            #expect(body.error == .envelopeConflict)
            #expect(!response.text.contains(forged.ciphertext.base64EncodedString()))
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "1")
            let pulled = try await device.pullOK()
            #expect(try device.vault.open(pulled.envelopes[0].envelope) == "original")
        }
    }

    @Test("Pulls page by limit: hasMore until the last page, lastSequence carries over, after past the end is empty")
    func paging() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            let envelopes = try (1...25).map { try vault.seal("item \($0)", record: "r/\($0)") }
            _ = try await device.pushOK(envelopes)

            let first = try await device.pullOK(after: 0, limit: 10)
            #expect(first.envelopes.map(\.sequence) == Array(1...10))
            #expect(first.hasMore && first.lastSequence == 10)
            let second = try await device.pullOK(after: first.lastSequence, limit: 10)
            #expect(second.envelopes.map(\.sequence) == Array(11...20))
            let third = try await device.pullOK(after: second.lastSequence, limit: 10)
            #expect(third.envelopes.map(\.sequence) == Array(21...25))
            #expect(!third.hasMore && third.lastSequence == 25)
            let empty = try await device.pullOK(after: 25, limit: 10)
            #expect(empty.envelopes.isEmpty && !empty.hasMore && empty.lastSequence == 25)
            #expect(try await device.pullAll(pageSize: 7).map(\.envelope) == envelopes)

            let negative = try await device.pull(after: -1)
            #expect(negative.status == 400)
            let zeroLimit = try await device.client.send("GET", "/v1/vaults/\(vault.id)/envelopes?limit=0",
                                                         token: device.token)
            #expect(zeroLimit.status == 400)
        }
    }

    @Test("The pull query is an index range scan of the primary key")
    func pullUsesIndex() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let device = try await TestDevice.register(vault, client: server.client)
            _ = try await device.pushOK(try (1...5).map { try vault.seal("x\($0)", record: "r\($0)") })
            let plan = try await server.sql("""
                SET enable_seqscan = off; EXPLAIN SELECT sequence FROM envelopes
                WHERE vault_id = '\(vault.id)' AND sequence > 2 ORDER BY sequence LIMIT 10
                """)
            #expect(plan.contains("Index") && plan.contains("envelopes_pkey"))
        }
    }

    @Test("Keyring: read, compare-and-swap on generation, 409 on a stale generation that changes nothing")
    func keyringCompareAndSwap() async throws {
        try await TestServer.with { server in
            let vault = TestVault()
            let first = try await TestDevice.register(vault, client: server.client)
            let second = try await TestDevice.join(vault, client: server.client)
            let path = "/v1/vaults/\(vault.id)/keyring"
            let initial = try await first.client.send("GET", path, token: first.token).decode(SyncKeyringBlob.self)
            #expect(initial.generation == 1)

            let newer = try SyncKeyringBlob(generation: 2, keyring: try vault.sealedKeyring("keyring 2"))
            let ok = try await first.client.send("PUT", path, token: first.token,
                                                 json: try SyncKeyringUpdate(expectedGeneration: 1, keyring: newer))
            #expect(ok.status == 200)

            let lost = try SyncKeyringBlob(generation: 2, keyring: try vault.sealedKeyring("keyring 2 bis"))
            let stale = try await second.client.send("PUT", path, token: second.token,
                                                     json: try SyncKeyringUpdate(expectedGeneration: 1, keyring: lost))
            #expect(stale.status == 409)
            #expect(try stale.decode(SyncErrorBody.self).error == .staleGeneration)
            let current = try await second.client.send("GET", path, token: second.token).decode(SyncKeyringBlob.self)
            #expect(current == newer)

            // A generation that does not grow is refused before the database.
            let flat = try await first.client.send("PUT", path, token: first.token, body: Data(
                #"{"expectedGeneration":2,"keyring":{"generation":2,"keyring":"AAAA"}}"#.utf8))
            #expect(flat.status == 400)
        }
    }

    @Test("Health answers ok while the database is reachable")
    func health() async throws {
        try await TestServer.with { server in
            let response = try await server.client.send("GET", "/v1/health")
            #expect(response.status == 200)
            #expect(try response.decode(SyncHealth.self).status == "ok")
        }
    }
}
