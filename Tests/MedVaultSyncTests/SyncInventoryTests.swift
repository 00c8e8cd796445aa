import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Medication stock across devices (issue #16): the stock is derived from dose logs,
/// refills and stock adjustments, which merge by union, so every device converges on
/// the stock one device would show had it seen every event, and no medication
/// conflict arises from logging doses or refills.
@Suite("Sync engine: medication stock")
struct SyncInventoryTests {
    /// A patient with a medication of 1 tablet a dose and 30 tablets in stock, synced
    /// to every device.
    static func setUp(_ devices: SyncDevices) async throws -> Medication {
        let vault = devices.vaults[0]
        let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
        let medication = try await vault.medications.create(Medication(
            patientID: patient.id, name: "Metformina", dosage: Dosage(amount: 1, unit: .tablets),
            frequency: .asNeeded, startDate: ClinicalFixtures.date("2026-01-01"),
            inventory: MedicationInventory(current: 30, minimum: 5)))
        try await devices.syncAll()
        return medication
    }

    /// Logs `count` taken doses of `amount` on `vault`, at hours distinct per `device`.
    static func logDoses(_ count: Int, amount: MedicationQuantity = 1, of medication: Medication, on vault: Vault,
                         device: Int) async throws -> [DoseLogReceipt] {
        var receipts: [DoseLogReceipt] = []
        for n in 0..<count {
            let at = ClinicalFixtures.now.addingTimeInterval(Double(device * 100 + n + 1) * 3600)
            receipts.append(try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at, amount: amount)))
        }
        return receipts
    }

    /// Every device's stock of `medication`.
    static func stocks(_ devices: SyncDevices, _ medication: Medication) async throws -> [MedicationQuantity?] {
        var stocks: [MedicationQuantity?] = []
        for vault in devices.vaults { stocks.append(try await vault.medications.get(medication.id).inventory?.current) }
        return stocks
    }

    /// Syncs the engines in `order`, `rounds` times.
    static func sync(_ devices: SyncDevices, order: [Int], rounds: Int = 2) async throws {
        for _ in 0..<rounds { for index in order { _ = try await devices.engines[index].sync() } }
    }

    static func expectNoConflicts(_ devices: SyncDevices) async throws {
        for engine in devices.engines { #expect(try await engine.conflicts().isEmpty) }
    }

    @Test("Doses logged offline on two devices: after syncing in either order both show 30 − both devices' doses, the same exports, and no conflict",
          arguments: [[0, 1], [1, 0]])
    func offlineDosesOnTwoDevices(order: [Int]) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            let onA = try await Self.logDoses(3, of: medication, on: devices.vaults[0], device: 0)
            let onB = try await Self.logDoses(2, amount: 2, of: medication, on: devices.vaults[1], device: 1)
            #expect(onA.last?.medication.inventory?.current == 27)
            #expect(onB.last?.medication.inventory?.current == 26)
            // A dose is not a new version of the medication.
            #expect(onA.last?.medication.version == medication.version)
            try await Self.sync(devices, order: order)
            #expect(try await Self.stocks(devices, medication) == [23, 23])
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            try await Self.expectNoConflicts(devices)
            // Nothing moves on further syncs (no echo of the recomputed stock).
            let results = try await devices.syncAll()
            #expect(results.allSatisfy { $0.uploaded == 0 })
            #expect(try await Self.stocks(devices, medication) == [23, 23])
        }
    }

    @Test("A refill on one device and doses on the other: both show 30 + refill − doses, no conflict")
    func refillAndDoses() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            let refill = try await devices.vaults[0].medications.refills.create(MedicationRefill(
                medicationID: medication.id, quantity: 60, date: ClinicalFixtures.date("2026-05-01")))
            #expect(refill.medication.inventory?.current == 90)
            #expect(refill.medication.version == medication.version)   // no expiration date: the record is unchanged
            _ = try await Self.logDoses(4, of: medication, on: devices.vaults[1], device: 1)
            try await devices.syncAll()
            #expect(try await Self.stocks(devices, medication) == [86, 86])
            try await Self.expectNoConflicts(devices)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A correction and a void on one device while the other logs doses: both show the stock of the surviving taken doses")
    func correctionAndVoidWhileTheOtherLogs() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            let logged = try await Self.logDoses(2, of: medication, on: devices.vaults[0], device: 0)
            try await devices.syncAll()
            #expect(try await Self.stocks(devices, medication) == [28, 28])
            // A: the first dose was 3 tablets, the second never happened. B: 2 more doses.
            let store = devices.vaults[0].medications
            let first = logged[0].log
            let corrected = try await store.doseLogs.correct(
                first.id, with: DoseLogCorrection(status: .taken, takenAt: first.takenAt, amount: 3, reason: "three"),
                expectedVersion: first.version)
            #expect(corrected.medication.inventory?.current == 26)
            let voided = try await store.doseLogs.void(logged[1].log.id, reason: "twice", expectedVersion: 1)
            #expect(voided.medication.inventory?.current == 27)
            _ = try await Self.logDoses(2, of: medication, on: devices.vaults[1], device: 1)
            try await devices.syncAll()
            // 30 − 3 (corrected) − 0 (voided) − 2 (B) = 25.
            #expect(try await Self.stocks(devices, medication) == [25, 25])
            try await Self.expectNoConflicts(devices)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A recount on one device concurrent with a dose on the other: both agree on the recount minus the dose it did not see")
    func recountConcurrentWithADose() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            // A counts the box: 20 left. B, offline, logs a dose A's count did not see.
            var onA = try await devices.vaults[0].medications.get(medication.id)
            onA.inventory?.current = 20
            let recounted = try await devices.vaults[0].medications.update(onA)
            #expect(recounted.inventory?.current == 20)
            _ = try await Self.logDoses(1, of: medication, on: devices.vaults[1], device: 1)
            try await devices.syncAll()
            // The recount is recorded as "+(20 − 30)" against what A's ledger held; B's
            // dose is then taken from it: 19 on both.
            #expect(try await Self.stocks(devices, medication) == [19, 19])
            try await Self.expectNoConflicts(devices)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A medication edit that wins by clock carries its sender's cached stock, and the receiver recomputes its own")
    func remoteMedicationRowDoesNotOverwriteTheStock() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            _ = try await Self.logDoses(5, of: medication, on: devices.vaults[1], device: 1)
            // A renames the medication with its copy showing 30 (it has not seen B's doses).
            var onA = try await devices.vaults[0].medications.get(medication.id)
            onA.name = "Metformina 850"
            _ = try await devices.vaults[0].medications.update(onA)
            try await Self.sync(devices, order: [0, 1])
            #expect(try await Self.stocks(devices, medication) == [25, 25])
            #expect(try await devices.vaults[1].medications.get(medication.id).name == "Metformina 850")
            try await Self.expectNoConflicts(devices)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("Concurrent recounts: the loser is listed, and keeping it on its device brings back its recount everywhere, the stock recomputed from the ledger")
    func concurrentRecountsResolved() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            for (index, vault) in devices.vaults.enumerated() {
                var copy = try await vault.medications.get(medication.id)
                copy.inventory?.current = index == 0 ? 20 : 25
                copy.instructions = "device \(index)"
                _ = try await vault.medications.update(copy)
            }
            _ = try await Self.logDoses(1, of: medication, on: devices.vaults[1], device: 1)
            try await devices.syncAll()
            // Both recounts are adjustments (−10 and −5 against 30): both count, with B's dose.
            #expect(try await Self.stocks(devices, medication) == [14, 14])
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            // The medication rows were concurrent versions (a genuine edit conflict): listed once per device.
            let listedA = try await devices.engines[0].conflicts()
            #expect(listedA.count == 1 && listedA.first?.table == "medication")
            let loserIndex = listedA.first?.loser == .local ? 0 : 1
            let conflict = try #require(try await devices.engines[loserIndex].conflicts().first)
            try await devices.engines[loserIndex].resolve(conflict.id, keep: .keepLocal)
            // The kept version carried its device's cached stock: recomputed, not restored.
            #expect(try await devices.vaults[loserIndex].medications.get(medication.id).inventory?.current == 14)
            try await devices.syncAll()
            #expect(try await Self.stocks(devices, medication) == [14, 14])
            for vault in devices.vaults {
                #expect(try await vault.medications.get(medication.id).instructions == "device \(loserIndex)")
            }
        }
    }

    @Test("A forged remote stock adjustment of an unknown medication is refused and listed; the stock does not move")
    func forgedAdjustmentRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let medication = try await Self.setUp(devices)
            let credentials = try #require(try await devices.engines[0].credentials())
            let state = SyncRowState(columns: [
                "id": .blob(Data(repeating: 7, count: 16)), "medication_id": .blob(Data(repeating: 9, count: 16)),
                "patient_id": .blob(Data(repeating: 9, count: 16)), "delta": .integer(1_000_000),
                "recorded_at": .integer(0), "version": .integer(1),
            ])
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let forged = SyncRecord(table: "medication_stock_adjustment", recordID: UUID(uuid: (7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)),
                                    version: 1, operation: "insert", timestamp: UInt64(Date().millisecondsSince1970) << 16,
                                    deviceID: credentials.deviceID, state: try encoder.encode(state))
            let envelope = try await devices.vaults[0].withSyncKeys { keys in try EnvelopeSealer(keys: keys).seal(forged) }
            try await SyncFixtures.signedPush([envelope], vault: devices.vaults[0], server: devices.server, as: credentials)
            let onB = try await devices.engines[1].sync()
            #expect(onB.conflicts == 1 && onB.errors.isEmpty)
            #expect(try await devices.engines[1].conflicts().map(\.kind) == [.refused])
            #expect(try await devices.vaults[1].medications.get(medication.id).inventory?.current == 30)
            let count = try await devices.vaults[1].database.read { db in
                try db.fetchOne("SELECT count(*) FROM medication_stock_adjustment") { $0.int64(at: 0) }
            }
            #expect(count == 1)   // the medication's own starting stock only
        }
    }

    @Test("Adjustments seeded by the upgrade travel at the first sync: the other device shows the same stock")
    func upgradeSeedsAreSynced() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            // A vault upgraded from before the ledger: a medication whose stock (25) the old
            // library kept in its row after 5 doses, and the seed the migration wrote for it
            // (its SQL, replayed here), with the mark it leaves.
            let vault = devices.vaults[0]
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            let medication = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Metformina", dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .asNeeded, startDate: ClinicalFixtures.date("2026-01-01")))
            _ = try await Self.logDoses(5, of: medication, on: vault, device: 0)
            try await vault.database.write { db in
                try db.execute("""
                    UPDATE medication SET inventory_current = 25000, inventory_minimum = 0, inventory_declared = 25000
                    WHERE id = ?
                    """, [medication.id.vaultValue])
                try db.execute("""
                    INSERT INTO medication_stock_adjustment (id, medication_id, patient_id, delta, recorded_at, version)
                    VALUES (?, ?, ?, 30000, 0, 1)
                    """, [medication.id.vaultValue, medication.id.vaultValue, patient.id.vaultValue])
                try db.execute("INSERT INTO medvault_metadata (key, value) VALUES ('stock ledger seeds unlogged', 1)")
            }
            #expect(try await vault.medications.get(medication.id).inventory?.current == 25)
            try await devices.syncAll()
            // Without the seed, B would compute max(0, −5) = 0.
            #expect(try await Self.stocks(devices, medication) == [25, 25])
            try await Self.expectNoConflicts(devices)
            // Logged once: the mark is gone and later seals log nothing more.
            let marks = try await vault.database.read { db in
                try db.fetchOne("SELECT count(*) FROM medvault_metadata WHERE key = 'stock ledger seeds unlogged'") {
                    $0.int64(at: 0)
                }
            }
            #expect(marks == 0)
            let results = try await devices.syncAll()
            #expect(results.allSatisfy { $0.uploaded == 0 })
        }
    }
}
