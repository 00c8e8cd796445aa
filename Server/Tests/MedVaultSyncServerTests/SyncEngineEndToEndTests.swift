import Foundation
import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import MedVaultSyncServer
import Testing

/// The library's `SyncEngine` with `HTTPSyncTransport`, real vaults on disk, against this
/// server over HTTP and a real PostgreSQL: devices converge (full exports compared), late
/// joiners and long-offline devices catch up, revoked and foreign devices are refused,
/// and the database holds nothing of what the devices wrote.
@Suite("Sync engine end to end through the server", .timeLimit(.minutes(4)))
struct SyncEngineEndToEndTests {
    @Test("Two, then three devices converge; the late joiner gets everything; a revoked device is unauthorized; another vault's device is notFound")
    func devicesConverge() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport, batchSize: 7)
            for name in ["Ana", "Luis", "Marta"] { try await EngineRecords.add(to: a.vault, marker: name) }
            #expect(try await a.engine.sync().uploaded == 18)

            // Two devices: B joins, pulls everything in pages of 7, and its edit comes back.
            let b = try await devices.join(a, transport, batchSize: 7)
            let pulled = try await b.engine.sync()
            #expect(pulled.downloaded == 18)
            #expect(pulled.uploaded == 0, "applied changes are not echoed back")
            #expect(pulled.errors.isEmpty)
            try await expectConverged([a, b], patients: 3)
            var ana = try #require(try await b.vault.patients.search("Ana", filter: .all, limit: 10).first)
            ana.address = "Calle Mayor 1"
            _ = try await b.vault.patients.update(ana)
            try await EngineRecords.add(to: a.vault, marker: "Pilar")
            try await syncAll([a, b])
            #expect(try await a.vault.patients.get(ana.id).address == "Calle Mayor 1")
            try await expectConverged([a, b], patients: 4)

            // Three devices: C joins late, after every change above, and gets all of it;
            // a change of C's reaches both others.
            let c = try await devices.join(a, transport)
            #expect(try await c.engine.sync().downloaded == 25)
            try await expectConverged([a, b, c], patients: 4)
            try await EngineRecords.add(to: c.vault, marker: "Tomás")
            var luis = try #require(try await a.vault.patients.search("Luis", filter: .all, limit: 10).first)
            luis.email = "luis@example.org"
            _ = try await a.vault.patients.update(luis)
            try await syncAll([a, b, c])
            try await expectConverged([a, b, c], patients: 5)
            #expect(try await b.vault.patients.get(luis.id).email == "luis@example.org")
            let envelopes = try await server.sql("SELECT count(*) FROM envelopes")
            #expect(envelopes == "32", "every change pushed once: 18 + 1 + 6 + 6 + 1, no echo")
            #expect(try await server.sql("""
                SELECT count(*) FROM (SELECT envelope_id FROM envelopes GROUP BY envelope_id HAVING count(*) > 1) d
                """) == "0")

            // A revokes C: C's token is refused on every sync from then on, A and B go on.
            let cCredentials = try await c.credentials()
            try await a.engine.revoke(device: cCredentials.deviceID)
            try await EngineRecords.add(to: c.vault, marker: "Rosa")
            let refused = await transportError { try await c.engine.sync() }
            #expect(refused?.code == .unauthorized)
            #expect(refused.map { String(describing: $0).contains(cCredentials.deviceToken) } == false)
            let raw = try await server.client.send("GET", "/v1/vaults/\(a.vault.vaultID)/envelopes?after=0",
                                                   token: cCredentials.deviceToken)
            #expect(raw.status == 401)
            #expect(try raw.decode(SyncErrorBody.self).error.rawValue == "unauthorized")
            try await syncAll([a, b])
            try await expectConverged([a, b], patients: 5)
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == envelopes, "nothing of C's after revocation")

            // Another vault's device, through its own engine credentials, on A's vault:
            // notFound, the very bytes an unknown vault gets, and nothing of A's data.
            let stranger = try await devices.register(transport)
            let own = try await stranger.credentials()
            let intruder = SyncCredentials(vaultID: a.vault.vaultID, deviceID: own.deviceID, deviceToken: own.deviceToken)
            #expect(await transportError { try await transport.pull(after: 0, limit: 10, as: intruder) }?.code == .notFound)
            #expect(await transportError { try await transport.keyring(as: intruder) }?.code == .notFound)
            let onA = try await server.client.send("GET", "/v1/vaults/\(a.vault.vaultID)/envelopes?after=0",
                                                   token: own.deviceToken)
            let onNothing = try await server.client.send("GET", "/v1/vaults/\(UUID())/envelopes?after=0",
                                                         token: own.deviceToken)
            #expect(onA.status == 404)
            #expect(onA.body == onNothing.body)
            #expect(try await stranger.engine.sync().downloaded == 0)
            #expect(try await stranger.vault.exportAllRecords().isEmpty)
        } }
    }

    @Test("A device whose push meets the vault's envelope quota still receives the others' changes, then reports limitExceeded")
    func quotaDoesNotStopPulls() async throws {
        var limits = SyncServerLimits()
        limits.maximumEnvelopesPerVault = 12   // two records of 6 envelopes
        try await EngineDevices.with { devices in try await TestServer.with(limits: limits) { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport, batchSize: 7)
            try await EngineRecords.add(to: a.vault, marker: "Ana")
            #expect(try await a.engine.sync().uploaded == 6)
            let b = try await devices.join(a, transport, batchSize: 7)
            _ = try await b.engine.sync()
            try await EngineRecords.add(to: a.vault, marker: "Luis")
            _ = try await a.engine.sync()   // the vault is at its quota now
            try await EngineRecords.add(to: b.vault, marker: "Marta")
            let refused = await #expect(throws: MedVaultError.self) { _ = try await b.engine.sync() }
            #expect(refused?.code == .limitExceeded, "\(String(describing: refused))")
            #expect(try await b.vault.patients.search("Luis", filter: .all, limit: 10).count == 1,
                    "the refused push stopped the pull")
        } }
    }

    @Test("A device offline for 1,000 changes (its syncs fail offline meanwhile) catches up and both converge")
    func offlineForAThousandChanges() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            try await EngineRecords.add(to: a.vault, marker: "Ana")
            let b = try await devices.join(a, transport)
            try await syncAll([a, b])
            try await expectConverged([a, b], patients: 1)

            // B loses the network: its syncs fail offline and keep its changes queued.
            let refusing = try RefusingPort()
            let offline = try makeTransport(URL(string: "http://127.0.0.1:\(refusing.port)")!, attempts: 2)
            let bOffline = EngineDevice(vault: b.vault, engine: SyncEngine(vault: b.vault, transport: offline))
            try await EngineRecords.addPatients(30, to: b.vault, prefix: "Offline")
            #expect(await transportError { try await bOffline.engine.sync() }?.code == .offline)

            // Meanwhile A makes 1,000 changes, synced as they go: 900 new patients, then
            // 100 edits (each its own envelope: a record is sealed once per sync).
            for chunk in 0..<9 { try await EngineRecords.addPatients(100, to: a.vault, prefix: "Batch\(chunk)") }
            #expect(try await a.engine.sync().uploaded == 900)
            let edited = try await a.vault.patients.search("Batch0", filter: .all, limit: 100)
            #expect(edited.count == 100)
            try await a.vault.write { tx in
                for var patient in edited {
                    patient.address = "Moved"
                    try tx.patients.update(patient)
                }
            }
            #expect(try await a.engine.sync().uploaded == 100)
            #expect(await transportError { try await bOffline.engine.sync() }?.code == .offline)
            withExtendedLifetime(refusing) {}

            // Back online: B pushes its 30 and pulls A's 1,000 in pages of 200.
            let back = try await b.engine.sync()
            #expect(back.uploaded == 30)
            #expect(back.downloaded == 1_000)
            #expect(back.errors.isEmpty)
            #expect(back.conflicts == 0)
            _ = try await a.engine.sync()
            try await expectConverged([a, b], patients: 931)
            #expect(try await b.vault.patients.get(edited[0].id).address == "Moved")
            #expect(try await server.sql("SELECT count(*) FROM envelopes") == "\(6 + 1_030)")
        } }
    }

    @Test("pg_dump after an engine scenario holds no field marker (UTF-8, UTF-16), record id, table name, password, recovery key, token or key (vault, database, sync, audit)")
    func dumpHoldsNothingOfTheRecords() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let b = try await devices.join(a, transport)
            let markers = ["Zyxengmarkera", "Ñandúengmarkerb"]
            var patients: [Patient] = []
            for marker in markers { patients.append(try await EngineRecords.add(to: a.vault, marker: marker)) }
            try await EngineRecords.add(to: b.vault, marker: "Qwengmarkerc")
            // A password change re-wraps the keyring, which the engine publishes.
            try await a.vault.changePassword(from: try Password(EngineDevices.password),
                                             to: try Password("nueva Vbengmarkerpw"))
            try await syncAll([a, b])
            try await expectConverged([a, b], patients: 3)
            #expect(try await server.sql("SELECT generation FROM keyrings") == "2")

            let dump = try await server.postgres.dump(server.database)
            let text = String(decoding: dump, as: UTF8.self)
            #expect(text.contains("COPY public.envelopes"))
            let recovery = try #require(await devices.recoveryKeys[a.vault.vaultID])
            var needles = markers + ["Qwengmarkerc", "Vbengmarkerpw", EngineDevices.password, recovery.formatted,
                                     "patient", "clinical_session", "diagnos", "medication", "firstName", "Madrid"]
            for patient in patients { needles += [patient.id.uuidString, patient.id.uuidString.lowercased()] }
            for needle in needles {
                for encoding in [String.Encoding.utf8, .utf16LittleEndian, .utf16BigEndian] {
                    let bytes = try #require(needle.data(using: encoding))
                    #expect(dump.range(of: bytes) == nil, "\(needle) in \(encoding)")
                }
                #expect(!text.lowercased().contains(needle.lowercased()), "\(needle), any case")
            }
            for device in [a, b] {
                let token = try await device.credentials().deviceToken
                let bytes = Data(token.utf8)
                #expect(!text.contains(token))
                #expect(!text.contains(bytes.base64EncodedString()))
                #expect(!text.contains(bytes.map { String(format: "%02x", $0) }.joined()))
            }
            var keys = Set<[UInt8]>()
            for device in [a, b] { keys.formUnion(try await KeyMaterial.of(device.vault)) }
            // One vault key and its four derived keys, each device's own database key, the
            // first epoch's key with its envelope and authority keys, each device's own key.
            let expected: Int = 5 + 2 + 3 + 2
            #expect(keys.count == expected)
            for key in keys {
                for needle in KeyMaterial.encodings(of: key) { #expect(dump.range(of: needle) == nil) }
            }
        } }
    }
}
