import Foundation
import MedVaultCore
import Testing

/// The stock as a ledger (`MedicationStockLedger`), on both backends: explicit stock
/// values, stale copies, the clamp at zero, and refills of untracked medications.
@Suite("Medication conformance: stock ledger")
struct MedicationStockLedgerConformanceTests {
    static let now = MT.utc("2026-05-10T10:00:00Z")

    func setUp(_ backend: MedicationBackend, current: MedicationQuantity? = 10)
        async throws -> (MedicationFixture, Medication)
    {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(
            patientID: try await f.registerPatient(), amount: 1,
            inventory: current.map { MedicationInventory(current: $0, minimum: 2) }))
        return (f, medication)
    }

    func dose(_ medication: Medication, _ index: Int, amount: MedicationQuantity? = nil) -> DoseLog {
        let at = MT.utc("2026-05-01T08:00:00Z").addingTimeInterval(Double(index) * 3600)
        return DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at, amount: amount)
    }

    @Test("A stale copy saved after doses keeps the doses; a copy read after them can still recount",
          arguments: MedicationBackend.all)
    func staleUpdateDoesNotUndoDoses(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend)
        _ = try await f.store.doseLogs.create([dose(medication, 0), dose(medication, 1)])
        // The app's copy still says 10 (read before the doses): "no stock change".
        var stale = medication
        stale.instructions = "with food"
        let saved = try await f.store.update(stale)
        #expect(saved.inventory?.current == 8 && saved.instructions == "with food")
        #expect(try await f.store.get(medication.id).inventory?.current == 8)
        // A copy with the current stock (8) and another field changed: no stock change either.
        var fresh = try await f.store.get(medication.id)
        fresh.inventory?.minimum = 1
        let kept = try await f.store.update(fresh)
        #expect(kept.inventory?.current == 8 && kept.inventory?.minimum == 1)
        // A recount: the stock the app gives, and later doses are taken from it.
        var recount = try await f.store.get(medication.id)
        recount.inventory?.current = 20
        #expect(try await f.store.update(recount).inventory?.current == 20)
        let after = try await f.store.doseLogs.create(dose(medication, 2))
        #expect(after.medication.inventory?.current == 19)
        // The recounted version declares 20: its copy saved again after the dose keeps 19.
        var again = try await f.store.get(medication.id)
        again.inventory?.current = 20
        again.name = "Ibuprofeno 400"
        #expect(try await f.store.update(again).inventory?.current == 19)
    }

    @Test("Clamping at zero happens once, at the end: a refill after a dose the stock could not cover fills the gap first",
          arguments: MedicationBackend.all)
    func clampOnceAtTheEnd(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, current: 1)
        let short = try await f.store.doseLogs.create(dose(medication, 0, amount: 2))
        #expect(short.medication.inventory?.current == .zero && short.shortfall == 1)
        // 1 − 2 + 10 = 9 (per-step clamping gave 10: 0 + 10).
        let refill = try await f.store.refills.create(MedicationRefill(
            medicationID: medication.id, quantity: 10, date: MT.day("2026-05-02")))
        #expect(refill.medication.inventory?.current == 9)
        // Voiding the dose restores exactly the stock before it, plus the refill: 11.
        let voided = try await f.store.doseLogs.void(short.log.id, reason: nil, expectedVersion: 1)
        #expect(voided.medication.inventory?.current == 11)
        #expect(try await f.store.get(medication.id).inventory?.current == 11)
    }

    @Test("A void at zero stock reads the ledger: it gives back only what the stock had covered",
          arguments: MedicationBackend.all)
    func voidAtZeroReadsTheLedger(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, current: 1)
        let first = try await f.store.doseLogs.create(dose(medication, 0, amount: 3))
        _ = try await f.store.doseLogs.create(dose(medication, 1))
        // Balance 1 − 3 − 1 = −3, shown as 0. Voiding the 3-unit dose: 1 − 1 = 0 (per-step
        // clamping gave 3: the whole dose back onto a stock that had never covered it).
        let voided = try await f.store.doseLogs.void(first.log.id, reason: nil, expectedVersion: 1)
        #expect(voided.medication.inventory?.current == .zero)
        let next = try await f.store.doseLogs.create(dose(medication, 5, amount: 1))
        #expect(next.medication.inventory?.current == .zero && next.shortfall == 1)
    }

    @Test("The first refill of an untracked medication starts its stock at the refill, whatever doses came before",
          arguments: MedicationBackend.all)
    func firstRefillStartsTheStock(_ backend: MedicationBackend) async throws {
        let (f, medication) = try await setUp(backend, current: nil)
        _ = try await f.store.doseLogs.create([dose(medication, 0), dose(medication, 1)])
        let refill = try await f.store.refills.create(MedicationRefill(
            medicationID: medication.id, quantity: 30, date: MT.day("2026-05-02")))
        #expect(refill.medication.inventory?.current == 30)
        #expect(refill.medication.version == medication.version + 1)   // a new inventory: a new version
        let later = try await f.store.doseLogs.create(dose(medication, 2))
        #expect(later.medication.inventory?.current == 29)
        // An update that starts tracking is an explicit stock too.
        let (g, other) = try await setUp(backend, current: nil)
        _ = try await g.store.doseLogs.create(dose(other, 0))
        var tracked = other
        tracked.inventory = MedicationInventory(current: 12)
        #expect(try await g.store.update(tracked).inventory?.current == 12)
        #expect(try await g.store.doseLogs.create(dose(other, 1)).medication.inventory?.current == 11)
    }
}
