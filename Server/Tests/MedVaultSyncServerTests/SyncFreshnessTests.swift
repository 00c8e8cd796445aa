import Foundation
@_spi(Sync) import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import MedVaultSyncServer
import Testing

/// A hostile server's operator, with its PostgreSQL, against the numbers each device
/// seals into its envelopes (docs/sync.md, "Sequence numbers"): an envelope dropped (its
/// sequence given to the next push so the pages stay dense) is reported as a gap by the
/// device that misses it; an envelope served again at a new sequence is refused as a replay, never a
/// conflict. And a device whose clock runs a year ahead (docs/sync.md, "Clocks").
@Suite("Sync freshness: dropped and replayed envelopes, clocks ahead", .timeLimit(.minutes(4)))
struct SyncFreshnessTests {
    @Test("The operator drops one of A's envelopes and reuses its sequence: B reports exactly that gap, and applies the others")
    func droppedEnvelopeIsAGap() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            for name in ["Ana", "Luis"] { try await EngineRecords.add(to: a.vault, marker: name) }
            #expect(try await a.engine.sync().uploaded == 12)
            #expect(try await a.engine.sync().missingEnvelopes.isEmpty)
            let vault = a.vault.vaultID
            // The 12th and last envelope of A (Luis's dose log) goes; nothing is after it to renumber.
            _ = try await server.sql("""
                DELETE FROM envelopes WHERE vault_id = '\(vault)' AND sequence = 12;
                UPDATE vaults SET last_sequence = last_sequence - 1 WHERE vault_id = '\(vault)'
                """)
            // A's next change gets 13 in A's sequence and sequence 12 at the server.
            try await EngineRecords.add(to: a.vault, marker: "Marta")
            #expect(try await a.engine.sync().uploaded == 6)

            let b = try await devices.join(a, transport)
            let result = try await b.engine.sync()
            #expect(result.downloaded == 17)
            #expect(result.errors.isEmpty)
            let aDevice = try await a.credentials().deviceID
            #expect(result.missingEnvelopes == [SyncMissingEnvelopes(deviceID: aDevice, sequences: 12...12)])
            #expect(try await b.engine.missingEnvelopes() == result.missingEnvelopes)
            #expect(try await b.vault.patients.count() == 3)
            // Nothing is missing from A's own point of view: it never pulls its own.
            #expect(try await a.engine.sync().missingEnvelopes.isEmpty)
        } }
    }

    @Test("The operator serves an old envelope of A again at a new sequence: B refuses it as a replay, lists no conflict and keeps the newer version")
    func replayedEnvelopeIsRefused() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            var ana = try await EngineRecords.add(to: a.vault, marker: "Ana")
            _ = try await a.engine.sync()
            let b = try await devices.join(a, transport)
            _ = try await b.engine.sync()
            ana.address = "Calle Nueva 2"
            ana = try await a.vault.patients.update(ana)
            _ = try await a.engine.sync()
            #expect(try await b.engine.sync().downloaded == 1)

            // A server that keeps no envelope id unique replays Ana's first envelope.
            let vault = a.vault.vaultID
            _ = try await server.sql("""
                ALTER TABLE envelopes DROP CONSTRAINT envelopes_vault_id_envelope_id_key;
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext, epoch, signature_id)
                    SELECT vault_id, sequence + 7, envelope_id, record_key, device_id, ciphertext, epoch, signature_id
                    FROM envelopes WHERE vault_id = '\(vault)' AND sequence = 1;
                UPDATE vaults SET last_sequence = last_sequence + 1 WHERE vault_id = '\(vault)'
                """)
            let result = try await b.engine.sync()
            #expect(result.downloaded == 0)
            #expect(result.conflicts == 0)
            #expect(result.errors.map(\.code) == [.duplicate])
            #expect(result.errors.first?.sequence == 8)
            #expect(try await b.engine.conflicts().isEmpty)
            #expect(try await b.vault.patients.get(ana.id).address == "Calle Nueva 2")
            #expect(result.missingEnvelopes.isEmpty)
        } }
    }

    @Test("A device a year ahead of another: its concurrent change does not win there, is listed, and resolving converges both")
    func clockAheadDoesNotWin() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            var ana = try await EngineRecords.add(to: a.vault, marker: "Ana")
            _ = try await a.engine.sync()
            let b = try await devices.join(a, transport, clock: RecordClock { Date().addingTimeInterval(-365 * 86_400) })
            _ = try await b.engine.sync()
            var onB = try await b.vault.patients.get(ana.id)
            onB.address = "Calle de B"
            _ = try await b.vault.patients.update(onB)
            ana.address = "Calle de A"
            ana = try await a.vault.patients.update(ana)
            _ = try await a.engine.sync()
            #expect(try await b.engine.sync().conflicts == 1)
            let listed = try await b.engine.conflicts()
            #expect(listed.map(\.kind) == [.clockAhead])
            #expect(try await b.vault.patients.get(ana.id).address == "Calle de B")
            try await b.engine.resolve(try #require(listed.first).id, keep: .keepLocal)
            try await syncAll([b, a])
            #expect(try await a.vault.patients.get(ana.id).address == "Calle de B")
            try await expectConverged([a, b], patients: 1)
        } }
    }

    @Test("B, holding the vault's keys, seals a change in A's name and pushes it without A's signature: the server refuses it and C keeps A's version")
    func forgedAuthorIsRefused() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let ana = try await EngineRecords.add(to: a.vault, marker: "Ana")
            _ = try await a.engine.sync()
            let b = try await devices.join(a, transport)
            let c = try await devices.join(a, transport)
            _ = try await b.engine.sync()
            _ = try await c.engine.sync()
            let bCredentials = try await b.credentials()
            let vaultID = a.vault.vaultID
            // A's first envelope (Ana's patient record), opened by B and re-sealed as a later
            // change of A's: a new address, a fresh number, one clock tick a second later.
            let original = try #require(try await transport.pull(after: 0, limit: 1, as: bCredentials).envelopes.first)
            #expect(original.deviceID == (try await a.credentials()).deviceID)
            let forged = try await b.vault.withSyncKeysSPI { keys -> SyncEnvelope in
                // docs/sync.md, "Envelopes": the v2 label and the epoch from epoch 1.
                func ad(_ id: UUID, _ recordKey: Data) -> [UInt8] {
                    var bytes = Array("MedVault sync envelope v2".utf8)
                    withUnsafeBytes(of: vaultID.uuid) { bytes += $0 }
                    withUnsafeBytes(of: keys.epoch.bigEndian) { bytes += $0 }
                    withUnsafeBytes(of: id.uuid) { bytes += $0 }
                    return bytes + recordKey
                }
                let plaintext = try keys.open(Array(original.envelope.ciphertext),
                                              associatedData: ad(original.envelope.id, original.envelope.recordKey))
                let unreadable = MedVaultError(.corrupted, reason: "the test could not read the envelope")
                guard var record = try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any],
                      let stateText = record["state"] as? String, let stateData = Data(base64Encoded: stateText),
                      var state = try JSONSerialization.jsonObject(with: stateData) as? [String: Any],
                      var columns = state["columns"] as? [String: Any],
                      let timestamp = record["timestamp"] as? Int64 else { throw unreadable }
                columns["address"] = ["t": "Calle Falsa 1"]
                columns["version"] = ["i": 2]
                state["columns"] = columns
                record["baseTimestamp"] = timestamp
                record["baseDeviceID"] = record["deviceID"]
                record["timestamp"] = timestamp + (1_000 << 16)
                record["version"] = 2
                record["operation"] = "update"
                record["deviceSequence"] = 1_000
                record["state"] = try JSONSerialization.data(withJSONObject: state).base64EncodedString()
                let id = UUID()
                let sealed = try keys.seal(Array(try JSONSerialization.data(withJSONObject: record)),
                                           associatedData: ad(id, original.envelope.recordKey))
                return try SyncEnvelope(id: id, recordKey: original.envelope.recordKey, ciphertext: Data(sealed),
                                        epoch: keys.epoch)
            }
            // The server stores no unsigned push in a vault with epochs (nor one signed by B
            // in A's name: the devices refuse that one, SyncSignedPushTests in memory).
            await #expect { _ = try await transport.push(SyncPushRequest(envelopes: [forged]), as: bCredentials) } throws: {
                ($0 as? MedVaultError)?.code == .validation
            }
            let result = try await c.engine.sync()
            #expect(result.errors.isEmpty)
            #expect(try await c.vault.patients.get(ana.id).address == "Ana street")
        } }
    }
}
