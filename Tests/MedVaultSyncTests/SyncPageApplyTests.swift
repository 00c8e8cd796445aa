import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A pulled page is applied as a batch (new records inserted together, the others one
/// by one): a page mixing every case must apply exactly what one-by-one applying did.
@Suite("Sync engine: applying a mixed page")
struct SyncPageApplyTests {
    /// Seals `record` with the vault's keys and pushes it as device `credentials`.
    static func push(_ record: SyncRecord, from devices: SyncDevices, _ credentials: SyncCredentials) async throws -> Int64 {
        let envelope = try await devices.vaults[0].withSyncKeys { keys in try EnvelopeSealer(keys: keys).seal(record) }
        return try #require(try await SyncFixtures.signedPush([envelope], vault: devices.vaults[0], server: devices.server,
                                                              as: credentials).sequences.first)
    }

    @Test("One page with new records, a record twice, a fast-forward, a concurrent edit, a refused deletion, a refused orphan, an unreadable state and a tampered envelope: exactly the right subset applies, each conflict is listed once, nothing is echoed")
    func mixedPage() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 200)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            let p1 = try await a.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            let p2 = try await a.patients.create(ClinicalFixtures.patient("Luis", "Gil"))
            let p4 = try await a.patients.create(ClinicalFixtures.patient("Eva", "Sanz"))
            try await devices.syncAll()
            let credentials = try #require(try await devices.engines[0].credentials())

            // B edits p2 without syncing: A's edit of p2 is concurrent.
            var p2OnB = try await b.patients.get(p2.id)
            p2OnB.address = "Calle B"
            _ = try await b.patients.update(p2OnB)

            // A: a fast-forward (p1), a concurrent edit (p2), new records (p3 + session),
            // and a record sent twice (p6 created, pushed, then edited and pushed).
            var p1OnA = try await a.patients.get(p1.id)
            p1OnA.address = "Calle 1"
            _ = try await a.patients.update(p1OnA)
            var p2OnA = try await a.patients.get(p2.id)
            p2OnA.address = "Calle A"
            _ = try await a.patients.update(p2OnA)
            let p3 = try await a.patients.create(ClinicalFixtures.patient("Zoe", "Navarro"))
            let s3 = try await a.sessions.create(ClinicalSession(
                patientID: p3.id, date: ClinicalFixtures.now, type: .phone, durationMinutes: 30, notes: "n",
                chiefComplaint: "c", treatmentPlan: "t"))
            let p6 = try await a.patients.create(ClinicalFixtures.patient("Iker", "Mora"))
            _ = try await devices.engines[0].sync()
            var p6OnA = try await a.patients.get(p6.id)
            p6OnA.address = "Segunda"
            _ = try await a.patients.update(p6OnA)
            _ = try await devices.engines[0].sync()

            // Forged by a device holding the keys, in its own name (one in another device's name
            // is refused before any rule, SyncFreshnessTests): a patient deletion (refused by its
            // trigger), a session of a patient nobody has (a new record, refused by the
            // foreign key), a state that is not JSON, and an envelope the server alters.
            let p4Clock = try #require(try await a.database.read { db in try SyncStateStore.clock(.patient, p4.id, db) })
            _ = try await Self.push(SyncRecord(table: "patient", recordID: p4.id, version: 9, operation: "delete",
                                               timestamp: UInt64(p4Clock.timestamp + 1), deviceID: credentials.deviceID, state: nil,
                                               baseTimestamp: UInt64(p4Clock.timestamp), baseDeviceID: p4Clock.deviceID),
                                    from: devices, credentials)
            var orphan = try #require(try await a.database.read { db in try SyncRecordStore.read(.clinicalSession, id: s3.id, db) })
            let orphanID = UUID()
            orphan.columns["id"] = SyncColumnValue(orphanID.vaultValue)
            orphan.columns["patient_id"] = SyncColumnValue(UUID().vaultValue)
            _ = try await Self.push(SyncRecord(table: "clinical_session", recordID: orphanID, version: 1, operation: "insert",
                                               timestamp: 1 << 40, deviceID: credentials.deviceID,
                                               state: try RemoteChangeApplier.encode(orphan)),
                                    from: devices, credentials)
            let unreadable = try await Self.push(SyncRecord(table: "patient", recordID: UUID(), version: 1, operation: "insert",
                                                            timestamp: 1 << 40, deviceID: credentials.deviceID, state: Data("{not json".utf8)),
                                                 from: devices, credentials)
            let tampered = try await Self.push(SyncRecord(table: "patient", recordID: UUID(), version: 1, operation: "insert",
                                                          timestamp: 1 << 40, deviceID: credentials.deviceID, state: nil),
                                               from: devices, credentials)
            try await devices.server.tamper(vaultID: credentials.vaultID, sequence: tampered) { data in
                var copy = data
                copy[copy.startIndex + 20] ^= 0x01
                return copy
            }
            let logBefore = try await b.database.read { db in try SyncRecordStore.latestSequence(db) }

            // B pulls all of it as one page.
            let result = try await devices.engines[1].sync()
            #expect(Set(result.errors.map(\.sequence)) == [unreadable, tampered])
            #expect(result.errors.allSatisfy { $0.code == .corrupted })
            #expect(result.conflicts == 3)   // p2 concurrent, p4 deletion refused, orphan refused
            #expect(try await b.patients.get(p1.id).address == "Calle 1")
            #expect(try await b.patients.get(p3.id).firstName == "Zoe")
            #expect(try await b.sessions.get(s3.id).patientID == p3.id)
            #expect(try await b.patients.get(p6.id).address == "Segunda")
            #expect(try await b.patients.get(p4.id).firstName == "Eva")
            let orphanStored = try await b.database.read { db in try SyncRecordStore.read(.clinicalSession, id: orphanID, db) }
            #expect(orphanStored == nil)
            // The new patient is searchable: its index rows were written with it.
            #expect(try await b.patients.search("Navarro").map(\.id) == [p3.id])
            // The clocks B holds are the senders'.
            for (table, id) in [(VaultTable.patient, p3.id), (.clinicalSession, s3.id), (.patient, p6.id), (.patient, p1.id)] {
                let onA = try await a.database.read { db in try SyncStateStore.clock(table, id, db) }
                let onB = try await b.database.read { db in try SyncStateStore.clock(table, id, db) }
                #expect(onA != nil && onA == onB)
            }
            // Every applied record is in B's change log, in page order; one entry each
            // for p3 and s3 (inserts), two for p6 (insert, then update).
            let entries = try await b.database.read { db in try SyncRecordStore.changeEntries(after: logBefore, limit: 100, db) }
            #expect(entries.filter { $0.recordID == p3.id }.map(\.operation) == [.insert])
            #expect(entries.filter { $0.recordID == s3.id }.map(\.operation) == [.insert])
            #expect(entries.filter { $0.recordID == p6.id }.map(\.operation) == [.insert, .update])
            let p3Index = try #require(entries.firstIndex { $0.recordID == p3.id })
            let s3Index = try #require(entries.firstIndex { $0.recordID == s3.id })
            #expect(p3Index < s3Index)

            let kinds = try await devices.engines[1].conflicts().map(\.kind)
            #expect(kinds.filter { $0 == .refused }.count == 2)
            #expect(kinds.filter { $0 == .concurrentChange }.count == 1)

            // More syncs: nothing listed twice, nothing echoed, both devices converge.
            try await devices.syncAll(rounds: 2)
            #expect(try await devices.engines[1].conflicts().count == 3)
            let again = try await devices.engines[1].sync()
            #expect(again.uploaded == 0 && again.downloaded == 0)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A clone pulled in many small pages (7 envelopes each) applied together converges, and the pull cursor ends at the server's last sequence")
    func multiPageClone() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir, batchSize: 7)
            defer { Task { await devices.lockAll() } }
            for index in 0..<40 {
                let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("P\(index)", "Clone"))
                _ = try await devices.vaults[0].sessions.create(ClinicalSession(
                    patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 50, notes: "n",
                    chiefComplaint: "c", treatmentPlan: "t"))
            }
            _ = try await devices.engines[0].sync()
            let result = try await devices.engines[1].sync()
            #expect(result.downloaded == 80 && result.errors.isEmpty && result.conflicts == 0)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let credentials = try #require(try await devices.engines[0].credentials())
            let cursor = try await devices.vaults[1].database.read { db in try SyncStateStore.state(db).pulledThrough }
            #expect(cursor == Int64(await devices.server.envelopeCount(vaultID: credentials.vaultID)))
        }
    }
}
