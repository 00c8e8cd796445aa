import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Conflicts: last writer wins by clock on every device alike, the loser is listed once
/// and can be brought back; medical-record rules hold against remote changes.
@Suite("Sync engine: conflicts")
struct SyncConflictTests {
    @Test("Concurrent edits of one patient: both devices keep the same winner, each lists the loser once, and keepLocal on the loser's device brings it back everywhere")
    func concurrentEdits() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            var onA = try await devices.vaults[0].patients.get(patient.id)
            var onB = try await devices.vaults[1].patients.get(patient.id)
            onA.address = "Calle A"
            onB.address = "Calle B"
            _ = try await devices.vaults[0].patients.update(onA)
            _ = try await devices.vaults[1].patients.update(onB)
            try await devices.syncAll(rounds: 3)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            let winner = try await devices.vaults[0].patients.get(patient.id).address
            #expect(winner == "Calle A" || winner == "Calle B")

            let listedA = try await devices.engines[0].conflicts()
            let listedB = try await devices.engines[1].conflicts()
            #expect(listedA.count == 1)
            #expect(listedB.count == 1)
            #expect(listedA.first?.losingTimestamp == listedB.first?.losingTimestamp)
            #expect(listedA.first?.losingDeviceID == listedB.first?.losingDeviceID)
            #expect(listedA.first?.recordID == patient.id)
            // More syncs list nothing new.
            try await devices.syncAll()
            #expect(try await devices.engines[0].conflicts().count == 1)

            // The device whose edit lost keeps it: a new change that wins everywhere.
            let loserIndex = winner == "Calle A" ? 1 : 0
            let loserEngine = devices.engines[loserIndex]
            let conflict = try #require(try await loserEngine.conflicts().first)
            #expect(conflict.loser == .local)
            try await loserEngine.resolve(conflict.id, keep: .keepLocal)
            #expect(try await loserEngine.conflicts().isEmpty)
            try await devices.syncAll()
            let kept = loserIndex == 0 ? "Calle A" : "Calle B"
            #expect(try await devices.vaults[0].patients.get(patient.id).address == kept)
            #expect(try await devices.vaults[1].patients.get(patient.id).address == kept)
            do {
                try await loserEngine.resolve(conflict.id, keep: .keepLocal)
                Issue.record("resolved twice")
            } catch let error as MedVaultError {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test("Dose logs logged offline on two devices merge without loss (append-only: no conflict)")
    func doseLogsUnion() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let patient = try await SyncFixtures.addRecord(to: devices.vaults[0])
            try await devices.syncAll()
            let medication = try #require(try await devices.vaults[0].medications.list(patientID: patient.id, filter: .all).first)
            for (index, vault) in devices.vaults.enumerated() {
                for hour in 0..<3 {
                    _ = try await vault.medications.doseLogs.create(DoseLog(
                        medicationID: medication.id,
                        scheduledAt: ClinicalFixtures.now.addingTimeInterval(Double(index * 10 + hour + 1) * 3600),
                        status: .taken, takenAt: ClinicalFixtures.now.addingTimeInterval(Double(index * 10 + hour + 1) * 3600)))
                }
            }
            try await devices.syncAll()
            for vault in devices.vaults {
                let count = try await vault.database.read { db in
                    try db.fetchOne("SELECT count(*) FROM dose_log") { row in row.int64(at: 0) }
                }
                #expect(count == 7)
            }
            #expect(try await devices.engines[0].conflicts().isEmpty)
            #expect(try await devices.engines[1].conflicts().isEmpty)
        }
    }

    @Test("A remote change that breaks a medical-record rule (deleting a patient) is refused, listed once, and the rest of the batch applies")
    func refusedRemoteDelete() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            // A device (a buggy or hostile build holding the keys) sends a patient deletion.
            let credentials = try #require(try await devices.engines[0].credentials())
            let base = try await devices.vaults[0].database.read { db in
                try SyncStateStore.clock(.patient, patient.id, db)
            }
            let forged = SyncRecord(table: "patient", recordID: patient.id, version: 2, operation: "delete",
                                    timestamp: UInt64(try #require(base).timestamp + 1), deviceID: credentials.deviceID,
                                    state: nil, baseTimestamp: base.map { UInt64($0.timestamp) },
                                    baseDeviceID: base?.deviceID)
            let envelope = try await devices.vaults[0].withSyncKeys { keys in try EnvelopeSealer(keys: keys).seal(forged) }
            try await SyncFixtures.signedPush([envelope], vault: devices.vaults[0], server: devices.server, as: credentials)
            _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Luis", "Ruiz"))
            let result = try await devices.engines[0].sync()
            _ = result
            let onB = try await devices.engines[1].sync()
            #expect(onB.conflicts == 1)
            #expect(onB.errors.isEmpty)
            #expect(try await devices.vaults[1].patients.get(patient.id).firstName == "Ana")
            #expect(try await devices.vaults[1].patients.list(filter: .all, after: nil, limit: 10).patients.count == 2)
            let listed = try await devices.engines[1].conflicts()
            #expect(listed.map(\.kind) == [.refused])
            // Keeping the remote version is refused again: the rule holds.
            do {
                try await devices.engines[1].resolve(try #require(listed.first).id, keep: .keepRemote)
                Issue.record("a patient was deleted")
            } catch let error as MedVaultError {
                #expect(error.code == .immutable)
            }
            try await devices.engines[1].resolve(try #require(listed.first).id, keep: .keepLocal)
            #expect(try await devices.engines[1].conflicts().isEmpty)
        }
    }
}
