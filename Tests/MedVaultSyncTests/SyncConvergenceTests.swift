import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Seeded random interleavings of record operations, syncs and offline periods on three
/// devices. `MEDVAULT_SYNC_SEEDS` (default 3) and `MEDVAULT_SYNC_OPS` (operations per
/// seed, default 300) scale it up to the 50 × 2,000; `MEDVAULT_TEST_SEED`
/// replays one seed.
@Suite("Sync engine: random interleavings")
struct SyncConvergenceTests {
    static let seeds = ProcessInfo.processInfo.environment["MEDVAULT_SYNC_SEEDS"].flatMap(Int.init) ?? 3
    static let operations = ProcessInfo.processInfo.environment["MEDVAULT_SYNC_OPS"].flatMap(Int.init) ?? 300

    @Test("Three devices, random operations, syncs and offline periods: after a final sync every export is identical, no created record is lost, no conflict is listed twice")
    func randomInterleavings() async throws {
        let fixed = ProcessInfo.processInfo.environment["MEDVAULT_TEST_SEED"].flatMap(UInt64.init)
        let seeds = fixed.map { [$0] } ?? (0..<UInt64(Self.seeds)).map { 1_000 + $0 }
        var listed = 0
        for seed in seeds {
            var random = SeededGenerator(seed: seed)
            listed += try await random.reportingSeed {
                try await withTemporaryDirectory { dir in
                    try await Self.run(seed: seed, operations: Self.operations, random: &random, dir: dir)
                }
            }
        }
        // The interleavings do produce concurrent edits: the conflict path is exercised.
        if fixed == nil && Self.operations >= 200 { #expect(listed > 0) }
    }

    /// Runs one seed; returns how many conflicts the devices list in all.
    private static func run(seed: UInt64, operations: Int, random: inout SeededGenerator,
                            dir: TemporaryDirectory) async throws -> Int {
        let devices = try await SyncDevices.make(3, in: dir, batchSize: 50)
        defer { Task { await devices.lockAll() } }
        var patients: [UUID] = []
        var sessions: [UUID] = []
        var medications: [UUID] = []
        var doseLogs: [UUID] = []
        var refusedOrFailed = 0
        for step in 0..<operations {
            let device = Int.random(in: 0..<3, using: &random)
            let vault = devices.vaults[device]
            let roll = Int.random(in: 0..<100, using: &random)
            do {
                switch roll {
                case 0..<15:
                    let patient = try await vault.patients.create(ClinicalFixtures.patient("P\(step)", "Seed\(seed)"))
                    patients.append(patient.id)
                case 15..<40:
                    guard let id = patients.randomElement(using: &random) else { continue }
                    var patient = try await vault.patients.get(id)
                    patient.address = "Calle \(step)"
                    _ = try await vault.patients.update(patient)
                case 40..<52:
                    guard let id = patients.randomElement(using: &random) else { continue }
                    let session = try await vault.sessions.create(ClinicalSession(
                        patientID: id, date: ClinicalFixtures.now.addingTimeInterval(Double(step) * 60), type: .video,
                        durationMinutes: 45, notes: "n\(step)", chiefComplaint: "c", treatmentPlan: "t"))
                    sessions.append(session.id)
                case 52..<62:
                    guard let id = sessions.randomElement(using: &random) else { continue }
                    var session = try await vault.sessions.get(id)
                    session.notes = "notas \(step)"
                    _ = try await vault.sessions.update(session)
                case 62..<67:
                    guard let id = patients.randomElement(using: &random) else { continue }
                    let medication = try await vault.medications.create(Medication(
                        patientID: id, name: "M\(step)", genericName: nil, dosage: Dosage(amount: 1, unit: .tablets),
                        frequency: .asNeeded, instructions: nil, startDate: ClinicalFixtures.date("2026-01-01"),
                        inventory: MedicationInventory(current: 50)))
                    medications.append(medication.id)
                case 67..<74:
                    guard let id = medications.randomElement(using: &random) else { continue }
                    let log = try await vault.medications.doseLogs.create(DoseLog(
                        medicationID: id, scheduledAt: ClinicalFixtures.now.addingTimeInterval(Double(step) * 60),
                        status: .taken, takenAt: ClinicalFixtures.now.addingTimeInterval(Double(step) * 60)))
                    doseLogs.append(log.log.id)
                case 74:
                    guard let id = medications.randomElement(using: &random) else { continue }
                    _ = try await vault.medications.refills.create(MedicationRefill(
                        medicationID: id, quantity: MedicationQuantity(Int.random(in: 1...30, using: &random)),
                        date: ClinicalFixtures.date("2026-02-01")))
                case 75:
                    // A recount: an explicit stock, recorded as an adjustment.
                    guard let id = medications.randomElement(using: &random) else { continue }
                    var medication = try await vault.medications.get(id)
                    medication.inventory?.current = MedicationQuantity(Int.random(in: 0...60, using: &random))
                    _ = try await vault.medications.update(medication)
                case 76:
                    guard let id = doseLogs.randomElement(using: &random) else { continue }
                    let log = try await vault.medications.doseLogs.get(id)
                    _ = try await vault.medications.doseLogs.void(id, reason: nil, expectedVersion: log.version)
                case 77..<80:
                    guard let id = patients.randomElement(using: &random) else { continue }
                    let patient = try await vault.patients.get(id)
                    if patient.deletedAt == nil {
                        _ = try await vault.patients.deactivate(id)
                    } else {
                        _ = try await vault.patients.reactivate(id)
                    }
                case 80..<83:
                    await devices.server.failNextCalls(Int.random(in: 1...3, using: &random))
                default:
                    _ = try await devices.engines[device].sync()
                }
            } catch let error as MedVaultError {
                // A record not yet synced to this device, an inactive patient, or the
                // server "offline": the operation did not happen.
                #expect([.notFound, .offline, .validation, .conflict, .immutable, .invalidArgument].contains(error.code),
                        "seed \(seed) step \(step): \(error.code)")
                refusedOrFailed += 1
            }
        }
        await devices.server.failNextCalls(0)
        let results = try await devices.syncAll(rounds: 3)
        #expect(results.allSatisfy { $0.errors.isEmpty }, "seed \(seed)")
        let exports = try await devices.exports()
        #expect(exports[0] == exports[1], "seed \(seed)")
        #expect(exports[1] == exports[2], "seed \(seed)")
        for vault in devices.vaults {
            let ids = try await vault.database.read { db in
                try db.fetchAll("SELECT id FROM patient") { row in try UUID(row: row, column: 0) }
            }
            #expect(Set(ids) == Set(patients), "seed \(seed): a created patient is missing")
            let logs = try await vault.database.read { db in
                try db.fetchAll("SELECT id FROM dose_log") { row in try UUID(row: row, column: 0) }
            }
            let voided = try await vault.database.read { db in
                try db.fetchAll("SELECT dose_log_id FROM dose_log_revision WHERE kind = 'void'") { row in
                    try UUID(row: row, column: 0)
                }
            }
            #expect(Set(doseLogs).isSubset(of: Set(logs).union(voided)), "seed \(seed): a dose log was lost")
            // Each device's stock is the ledger's over the merged records (the cache was
            // recomputed after every pulled batch); the exports above compare them across devices.
            for id in medications {
                guard let medication = try await vault.medications.find(id), let inventory = medication.inventory else {
                    continue
                }
                let balance = try await vault.database.read { db in try MedicationStockStore.balance(of: medication, db) }
                #expect(inventory.current == MedicationStockLedger.stock(balance: balance), "seed \(seed): a stale stock")
            }
        }
        var listed = 0
        for engine in devices.engines {
            let conflicts = try await engine.conflicts()
            listed += conflicts.count
            let keys = conflicts.map { "\($0.table)/\($0.recordID)/\($0.losingTimestamp.rawValue)/\($0.losingDeviceID)" }
            #expect(Set(keys).count == keys.count, "seed \(seed): a conflict listed twice")
        }
        _ = refusedOrFailed
        return listed
    }
}
