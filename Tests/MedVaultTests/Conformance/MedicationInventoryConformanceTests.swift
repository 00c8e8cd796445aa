import Foundation
import MedVaultCore
import Testing

/// Inventory arithmetic, its transaction with the dose log, and the inventory queries.
@Suite("Medication conformance: inventory")
struct MedicationInventoryConformanceTests {
    static let now = MT.utc("2026-05-10T10:00:00Z")

    func setUp(_ backend: MedicationBackend, amount: MedicationQuantity = 1, current: MedicationQuantity = 10)
        async throws -> (MedicationFixture, Medication)
    {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(
            patientID: try await f.registerPatient(), amount: amount,
            inventory: MedicationInventory(current: current, minimum: 2)))
        return (f, medication)
    }

    func dose(_ medication: Medication, _ index: Int, _ status: DoseStatus = .taken) -> DoseLog {
        let at = MT.utc("2026-05-01T08:00:00Z").addingTimeInterval(Double(index) * 3600)
        return DoseLog(medicationID: medication.id, scheduledAt: at, status: status,
                       takenAt: status == .taken || status == .late ? at : nil)
    }

    @Test(arguments: MedicationBackend.all)
    func takingADoseDecrementsInventoryAndKeepsTheVersion(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, amount: 1.5)
        let receipt = try await f.store.doseLogs.create(dose(medication, 0))
        #expect(receipt.log.version == 1)
        #expect(receipt.shortfall == .zero)
        #expect(receipt.medication.inventory?.current == 8.5)
        // The stock is derived from the logs (MedicationStockLedger): no new version of
        // the medication, so two devices logging doses never write concurrent versions.
        #expect(receipt.medication.version == 1 && receipt.medication.updatedAt == medication.updatedAt)
        #expect(try await f.store.find(medication.id) == receipt.medication)

        let late = try await f.store.doseLogs.create(dose(medication, 1, .late))
        #expect(late.medication.inventory?.current == 7)
        for status in [DoseStatus.skipped, .missed] {
            let receipt = try await f.store.doseLogs.create(dose(medication, status == .skipped ? 2 : 3, status))
            #expect(receipt.medication == late.medication)   // nothing consumed, nothing changed
        }
        // The stale copy the caller held (stock 10) no longer conflicts, and saving it
        // does not undo the doses: its stock is the one its version was written with,
        // so it reads as "no stock change" (MedicationStockLedger.requestedStock).
        var stale = medication
        stale.name = "Ibuprofeno 600"
        let saved = try await f.store.update(stale)
        #expect(saved.inventory?.current == 7 && saved.name == "Ibuprofeno 600" && saved.version == 2)
        #expect(try await f.store.get(medication.id).inventory?.current == 7)
        // A second stale save (version 1 again) now conflicts: the rename is a new version.
        #expect(await MT.error { _ = try await f.store.update(stale) }?.code == .conflict)
    }

    @Test(arguments: MedicationBackend.all)
    func arithmeticIsExact(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, amount: 0.1, current: 10)
        let receipts = try await f.store.doseLogs.create((0..<100).map { dose(medication, $0) })
        #expect(receipts.map(\.shortfall).allSatisfy { $0 == .zero })
        let stored = try #require(try await f.store.find(medication.id))
        #expect(stored.inventory?.current == .zero)
        #expect(stored.version == 1)   // 100 doses, no new version: the stock is derived (MedicationStockLedger)
    }

    @Test(arguments: MedicationBackend.all)
    func aDoseBeyondTheStockIsRecordedAndTheShortfallReported(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, amount: 2, current: 0.5)
        let receipt = try await f.store.doseLogs.create(dose(medication, 0))
        #expect(receipt.shortfall == 1.5)
        #expect(receipt.medication.inventory?.current == .zero)
        let again = try await f.store.doseLogs.create(dose(medication, 1))
        #expect(again.shortfall == 2)
        #expect(again.medication.inventory?.current == .zero)
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: Date.distantPast..<Date.distantFuture).count == 2)
    }

    @Test(arguments: MedicationBackend.all)
    func aFailureAfterTheLogWriteLeavesNeitherChange(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend)
        await f.failNextWrite(.afterDoseLogWrite)
        let failure = await MT.error { _ = try await f.store.doseLogs.create(dose(medication, 0)) }
        #expect(failure?.code == .storage)
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: Date.distantPast..<Date.distantFuture).isEmpty)
        #expect(try await f.store.find(medication.id) == medication)

        // The hook fires once: the same log then succeeds.
        let receipt = try await f.store.doseLogs.create(dose(medication, 0))
        #expect(receipt.medication.inventory?.current == 9)
    }

    @Test(arguments: MedicationBackend.all)
    func aFailingBatchWritesNothing(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend)
        // The third log repeats the first dose: it fails after two logs and two
        // inventory changes were written inside the transaction.
        let batch = [dose(medication, 0), dose(medication, 1), DoseLog(
            medicationID: medication.id, scheduledAt: dose(medication, 0).scheduledAt, status: .missed)]
        let failure = await MT.error { _ = try await f.store.doseLogs.create(batch) }
        #expect(failure?.code == .duplicate)
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: Date.distantPast..<Date.distantFuture).isEmpty)
        #expect(try await f.store.find(medication.id) == medication)

        await f.failNextWrite(.afterDoseLogWrite)
        let injected = await MT.error { _ = try await f.store.doseLogs.create(Array(batch[0...1])) }
        #expect(injected?.code == .storage)
        #expect(try await f.store.find(medication.id) == medication)
        #expect(try await f.store.doseLogs.create([]).isEmpty)
    }

    @Test(arguments: MedicationBackend.all)
    func lowInventoryAndExpiringQueries(_ backend: MedicationBackend) async throws {
        // Today is 2026-05-10 in Madrid.
        let f = try await backend.make(.fixed(Self.now))
        let patientID = try await f.registerPatient()
        func make(_ name: String, _ inventory: MedicationInventory?, active: Bool = true) async throws -> Medication {
            var medication = try await f.store.create(MT.medication(patientID: patientID, name: name, inventory: inventory))
            if !active { medication = try await f.store.deactivate(medication.id) }
            return medication
        }
        let atMinimum = try await make("A at minimum", MedicationInventory(current: 5, minimum: 5))
        let below = try await make("B below", MedicationInventory(current: 1, minimum: 5, expirationDate: MT.day("2026-05-20")))
        _ = try await make("C above", MedicationInventory(current: 5.001, minimum: 5, expirationDate: MT.day("2026-05-21")))
        _ = try await make("D untracked", nil)
        _ = try await make("E inactive", MedicationInventory(current: 0, minimum: 5, expirationDate: MT.day("2026-01-01")),
                           active: false)
        let expired = try await make("F expired", MedicationInventory(current: 9, expirationDate: MT.day("2026-01-01")))
        let today = try await make("G today", MedicationInventory(current: 9, expirationDate: MT.day("2026-05-10")))
        _ = try await make("H untracked too", nil)

        #expect(try await f.store.lowInventory(forPatient: patientID).map(\.id) == [atMinimum.id, below.id])
        #expect(try await f.store.expiring(forPatient: patientID, withinDays: 0, in: MT.madrid).map(\.id)
                == [expired.id, today.id])
        #expect(try await f.store.expiring(forPatient: patientID, withinDays: 10, in: MT.madrid).map(\.id)
                == [below.id, expired.id, today.id])
        #expect(try await f.store.expiring(forPatient: patientID, withinDays: 11, in: MT.madrid).count == 4)
        let negative = await MT.error { _ = try await f.store.expiring(forPatient: patientID, withinDays: -1, in: MT.madrid) }
        #expect(negative?.code == .invalidArgument)
    }
}
